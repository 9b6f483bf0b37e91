import { type FormEvent, useState } from "react";
import { errorMessage } from "../../api/api-error.ts";
import type { Role } from "../../api/types.ts";
import { useCreateUser } from "../../api/use-users.ts";
import { Alert } from "../Alert/Alert.tsx";
import { Button } from "../Button/Button.tsx";
import { NewTokenNotice } from "../NewTokenNotice/NewTokenNotice.tsx";
import { SelectField } from "../Form/SelectField.tsx";
import { TextField } from "../Form/TextField.tsx";
import styles from "./CreateUserForm.module.css";

/** Creates a user and shows its token once, with a copy button: only its hash is stored. */
export function CreateUserForm() {
  const create = useCreateUser();
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("user");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!name.trim()) return;
    create.mutate({ name: name.trim(), role }, { onSuccess: () => setName("") });
  }

  return (
    <div className={styles.wrapper}>
      <form className={styles.form} onSubmit={submit}>
        <TextField label="Name" value={name} onChange={(event) => setName(event.target.value)} autoComplete="off" fieldClassName={styles.name} />
        <SelectField
          label="Role"
          options={[
            { value: "user", label: "User" },
            { value: "admin", label: "Admin" },
          ]}
          value={role}
          onChange={(event) => setRole(event.target.value as Role)}
          fieldClassName={styles.role}
        />
        <Button type="submit" variant="primary" busy={create.isPending} disabled={!name.trim()}>
          Create user
        </Button>
      </form>
      {create.isError && <Alert>{errorMessage(create.error)}</Alert>}
      {create.data && (
        <NewTokenNotice
          title={`${create.data.name} (${create.data.role}) was created`}
          warning={`This token is shown only once. Copy it now and give it to ${create.data.name}: it cannot be shown again.`}
          token={create.data.token}
          onDone={() => create.reset()}
        />
      )}
    </div>
  );
}
