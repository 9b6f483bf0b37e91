import { Link } from "react-router";
import { EmptyState } from "../../components/EmptyState/EmptyState.tsx";
import styles from "./NotFoundPage.module.css";

export function NotFoundPage() {
  return (
    <div className={styles.page}>
      <h1 className="visually-hidden">Page not found</h1>
      <EmptyState title="There is no page here" action={<Link to="/chats">Go to your chats</Link>}>
        The address may be mistyped, or the page moved.
      </EmptyState>
    </div>
  );
}
