import { useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { Role, UserWithUsage } from "../../api/types.ts";
import { useMe } from "../../api/use-me.ts";
import { useRotateUserToken, useUpdateUser, useUsers } from "../../api/use-users.ts";
import { formatDateTime } from "../../lib/format.ts";
import { formatUsage } from "../../lib/format-usage.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Badge } from "../Badge/Badge.tsx";
import { Button } from "../Button/Button.tsx";
import { ConfirmActions } from "../ConfirmActions/ConfirmActions.tsx";
import { SelectField } from "../Form/SelectField.tsx";
import { Loading } from "../Loading/Loading.tsx";
import { NewTokenNotice } from "../NewTokenNotice/NewTokenNotice.tsx";
import { UserLimitsEditor } from "../UserLimitsEditor/UserLimitsEditor.tsx";
import { DataTable } from "../DataTable/DataTable.tsx";
import styles from "./UserList.module.css";

const ROLE_OPTIONS = [
  { value: "user", label: "User" },
  { value: "admin", label: "Admin" },
];

/**
 * Every user with their role (changeable), whether they are disabled, their usage today and their
 * limits (changeable; empty = the deployment's setting), and a new token on demand.
 * A new token replaces the user's current one at once, so it asks once more before doing it.
 */
export function UserList() {
  const users = useUsers();
  const me = useMe();
  const update = useUpdateUser();
  const rotate = useRotateUserToken();
  const [confirmingTokenFor, setConfirmingTokenFor] = useState<string | null>(null);

  if (users.isPending) return <Loading label="Loading users…" />;
  if (users.isError) return <Alert>{errorMessage(users.error)}</Alert>;

  const busy = (user: UserWithUsage, what: "role" | "disabled" | "max_active_runs") =>
    update.isPending && update.variables.userId === user.id && what in update.variables.changes;

  return (
    <div className={styles.wrapper}>
      {update.isError && <Alert>{errorMessage(update.error)}</Alert>}
      {rotate.isError && <Alert>{errorMessage(rotate.error)}</Alert>}
      {rotate.isSuccess && (
        <NewTokenNotice
          title={`New token for ${rotate.variables.name}`}
          warning={`This token is shown only once, and ${rotate.variables.name}'s previous token no longer works. Copy it now: it cannot be shown again.`}
          token={rotate.data}
          onDone={() => rotate.reset()}
        />
      )}
      <DataTable
        caption="Users"
        columns={[
          "Name",
          "Role",
          "Status",
          "Usage today",
          "Limits: active, runs a day, tokens a day (empty: the setting)",
          "Created",
          { visuallyHidden: "Actions" },
        ]}
      >
        {users.data.map((user) => (
          <tr key={user.id} data-user={user.name} className={user.disabled ? styles.disabledRow : undefined}>
            <th scope="row" className={styles.name}>
              {user.name}
              {user.id === me.data?.id && <span className={styles.you}> (you)</span>}
            </th>
            <td>
              <SelectField
                label={`Role of ${user.name}`}
                hideLabel
                options={ROLE_OPTIONS}
                value={user.role}
                disabled={busy(user, "role")}
                onChange={(event) => update.mutate({ userId: user.id, changes: { role: event.target.value as Role } })}
                fieldClassName={styles.role}
              />
            </td>
            <td>{user.disabled ? <Badge tone="danger">disabled</Badge> : <Badge tone="success">enabled</Badge>}</td>
            <td className={styles.usage} data-usage={user.name}>
              <span>
                {user.usage.active_runs}/{user.limits.max_active_runs} active
              </span>
              <span>{formatUsage(user.usage.runs_today, user.limits.runs_per_day)} runs</span>
              <span>{formatUsage(user.usage.tokens_today, user.limits.tokens_per_day)} tokens</span>
            </td>
            <td>
              <UserLimitsEditor
                key={`${user.max_active_runs}-${user.runs_per_day}-${user.tokens_per_day}`}
                user={user}
                busy={busy(user, "max_active_runs")}
                onSave={(changes) => update.mutate({ userId: user.id, changes })}
              />
            </td>
            <td className="muted">{formatDateTime(user.created_at)}</td>
            <td>
              <span className={styles.actions}>
                {confirmingTokenFor === user.id ? (
                  <ConfirmActions
                    label="Replace token"
                    ariaLabel={`Replace ${user.name}'s token`}
                    busy={rotate.isPending}
                    onConfirm={() => rotate.mutate({ userId: user.id, name: user.name }, { onSettled: () => setConfirmingTokenFor(null) })}
                    onCancel={() => setConfirmingTokenFor(null)}
                  />
                ) : (
                  <>
                    <Button
                      size="small"
                      variant={user.disabled ? "secondary" : "danger"}
                      busy={busy(user, "disabled")}
                      aria-label={`${user.disabled ? "Enable" : "Disable"} ${user.name}`}
                      onClick={() => update.mutate({ userId: user.id, changes: { disabled: !user.disabled } })}
                    >
                      {user.disabled ? "Enable" : "Disable"}
                    </Button>
                    <Button size="small" aria-label={`New token for ${user.name}`} onClick={() => setConfirmingTokenFor(user.id)}>
                      New token
                    </Button>
                  </>
                )}
              </span>
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
