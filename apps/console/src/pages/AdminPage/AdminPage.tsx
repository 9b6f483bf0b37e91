import { errorMessage } from "../../api/api-error.ts";
import { useMe } from "../../api/use-me.ts";
import { useSettingRanges } from "../../api/use-setting-ranges.ts";
import { useSettings } from "../../api/use-settings.ts";
import { AddMcpServerForm } from "../../components/AddMcpServerForm/AddMcpServerForm.tsx";
import { Alert } from "../../components/Alert/Alert.tsx";
import { CreateUserForm } from "../../components/CreateUserForm/CreateUserForm.tsx";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import { Loading } from "../../components/Loading/Loading.tsx";
import { McpServerList } from "../../components/McpServerList/McpServerList.tsx";
import { PageHeader } from "../../components/PageHeader/PageHeader.tsx";
import { Panel } from "../../components/Panel/Panel.tsx";
import { SettingsForm } from "../../components/SettingsForm/SettingsForm.tsx";
import { ServiceStatus } from "../../components/ServiceStatus/ServiceStatus.tsx";
import { UserList } from "../../components/UserList/UserList.tsx";
import { useUsers } from "../../api/use-users.ts";
import { AuditLog } from "../../components/AuditLog/AuditLog.tsx";
import styles from "./AdminPage.module.css";

export function AdminPage() {
  const me = useMe();
  const isAdmin = me.data?.role === "admin";
  const settings = useSettings(isAdmin);
  const ranges = useSettingRanges(isAdmin);
  const users = useUsers(isAdmin);
  const userNames = new Map((users.data ?? []).map((user) => [user.id, user.name]));
  if (me.isPending) return <Loading />;
  if (!isAdmin) {
    return (
      <div className={styles.page}>
        <PageHeader title="Admin" />
        <EmptyState title="Admins only">Settings and users are managed by an admin of this deployment.</EmptyState>
      </div>
    );
  }
  return (
    <div className={styles.page}>
      <PageHeader title="Admin" description="Settings apply to every run of this deployment; values outside a setting's range are brought into it." />
      <div className={styles.sections}>
        <Panel title="Services">
          <ServiceStatus />
        </Panel>
        <Panel title="Users">
          <div className={styles.users}>
            <UserList />
            <CreateUserForm />
          </div>
        </Panel>
        <Panel title="MCP servers">
          <div className={styles.users}>
            <McpServerList />
            <AddMcpServerForm />
          </div>
        </Panel>
        <Panel title="Settings">
          {settings.isPending && <Loading label="Loading settings…" />}
          {settings.isError && <Alert>{errorMessage(settings.error)}</Alert>}
          {settings.isSuccess && <SettingsForm settings={settings.data} ranges={ranges.data} />}
        </Panel>
        <Panel title="Audit log">
          <AuditLog userNames={userNames} />
        </Panel>
      </div>
    </div>
  );
}
