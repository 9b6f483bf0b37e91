import { Suspense, useEffect, useState } from "react";
import { NavLink, Outlet, useLocation } from "react-router";
import { usePendingApprovals } from "../../api/use-approvals.ts";
import { useMe } from "../../api/use-me.ts";
import { UsageSummary } from "../UsageSummary/UsageSummary.tsx";
import { useSignOut } from "../../api/use-session.ts";
import { classNames } from "../../lib/class-names.ts";
import { Badge } from "../Badge/Badge.tsx";
import { Button } from "../Button/Button.tsx";
import { ErrorBoundary } from "../ErrorBoundary/ErrorBoundary.tsx";
import { Icon, type IconName } from "../Icon/Icon.tsx";
import { Loading } from "../Loading/Loading.tsx";
import styles from "./AppShell.module.css";

interface NavItem {
  to: string;
  label: string;
  icon: IconName;
  adminOnly?: boolean;
}

const NAV_ITEMS: NavItem[] = [
  { to: "/chats", label: "Chats", icon: "chats" },
  { to: "/approvals", label: "Approvals", icon: "approvals" },
  { to: "/workspaces", label: "Workspaces", icon: "workspaces" },
  { to: "/documents", label: "Documents", icon: "file" },
  { to: "/tools", label: "Tools", icon: "tools" },
  { to: "/jobs", label: "Jobs", icon: "jobs" },
  { to: "/mail", label: "Mail", icon: "mail" },
  { to: "/notes", label: "Notes", icon: "notes" },
  { to: "/tasks", label: "Tasks", icon: "tasks" },
  { to: "/calendar", label: "Calendar", icon: "calendar" },
  { to: "/memories", label: "Memories", icon: "memories" },
  { to: "/webhooks", label: "Webhooks", icon: "webhooks" },
  { to: "/admin", label: "Admin", icon: "admin", adminOnly: true },
];

/** Header, navigation and the page; the navigation folds behind a Menu button on narrow screens. */
export function AppShell() {
  const me = useMe();
  const signOut = useSignOut();
  const pending = usePendingApprovals();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const pendingCount = pending.data?.length ?? 0;

  // Following a link closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation on purpose
  useEffect(() => setMenuOpen(false), [location.pathname]);

  useEffect(() => {
    if (!menuOpen) return;
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key === "Escape") setMenuOpen(false);
    };
    window.addEventListener("keydown", closeOnEscape);
    return () => window.removeEventListener("keydown", closeOnEscape);
  }, [menuOpen]);

  return (
    <div className={styles.shell}>
      <a className={styles.skipLink} href="#main">
        Skip to content
      </a>
      <header className={styles.header}>
        <button type="button" className={styles.menuButton} aria-expanded={menuOpen} aria-controls="app-navigation" onClick={() => setMenuOpen(!menuOpen)}>
          <Icon name={menuOpen ? "close" : "menu"} size={18} />
          <span className="visually-hidden">Menu</span>
        </button>
        <NavLink to="/chats" className={styles.brand}>
          <span className={styles.logo} aria-hidden="true">
            a
          </span>
          agentq
        </NavLink>
        <div className={styles.user}>
          <UsageSummary />
          {me.data && (
            <p className={styles.identity}>
              <span className={styles.userName}>{me.data.name}</span>
              <Badge tone={me.data.role === "admin" ? "accent" : "neutral"}>{me.data.role}</Badge>
            </p>
          )}
          <Button size="small" variant="ghost" onClick={signOut}>
            Sign out
          </Button>
        </div>
      </header>
      <nav id="app-navigation" aria-label="Main" className={classNames(styles.nav, menuOpen && styles.navOpen)}>
        <ul className={styles.navList}>
          {NAV_ITEMS.filter((item) => !item.adminOnly || me.data?.role === "admin").map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} className={({ isActive }) => classNames(styles.navLink, isActive && styles.navLinkActive)}>
                <Icon name={item.icon} />
                <span className={styles.navLabel}>{item.label}</span>
                {item.to === "/approvals" && pendingCount > 0 && (
                  <span className={styles.count}>
                    {pendingCount}
                    <span className="visually-hidden"> pending</span>
                  </span>
                )}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      {menuOpen && <button type="button" tabIndex={-1} aria-hidden="true" className={styles.scrim} onClick={() => setMenuOpen(false)} />}
      <main id="main" className={styles.main} tabIndex={-1}>
        <ErrorBoundary key={location.pathname}>
          {/* Each page is a file of its own (router.tsx), fetched the first time it is shown. */}
          <Suspense fallback={<Loading label="Loading the page…" />}>
            <Outlet />
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}
