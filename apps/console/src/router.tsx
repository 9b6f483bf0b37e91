import { createBrowserRouter, Navigate, useRouteError } from "react-router";
import { RouterProvider } from "react-router/dom";
import { AppShell } from "./components/AppShell/AppShell.tsx";
import { PageError } from "./components/ErrorBoundary/ErrorBoundary.tsx";
import { lazyComponent } from "./lib/load-code.ts";

// Each page comes from its own file the first time it is shown: signing in, and each page, fetch and
// compile only the code they use (markdown-it, for one, comes with the chat and documents pages
// only). Meanwhile the Suspense boundaries in AppShell and ChatsPage show a loading status.

const AdminPage = lazyComponent(() => import("./pages/AdminPage/AdminPage.tsx").then((module) => module.AdminPage));
const ApprovalsPage = lazyComponent(() => import("./pages/ApprovalsPage/ApprovalsPage.tsx").then((module) => module.ApprovalsPage));
const CalendarPage = lazyComponent(() => import("./pages/CalendarPage/CalendarPage.tsx").then((module) => module.CalendarPage));
const ChatPage = lazyComponent(() => import("./pages/ChatPage/ChatPage.tsx").then((module) => module.ChatPage));
const ChatsIndex = lazyComponent(() => import("./pages/ChatsPage/ChatsPage.tsx").then((module) => module.ChatsIndex));
const ChatsPage = lazyComponent(() => import("./pages/ChatsPage/ChatsPage.tsx").then((module) => module.ChatsPage));
const DocumentsPage = lazyComponent(() => import("./pages/DocumentsPage/DocumentsPage.tsx").then((module) => module.DocumentsPage));
const JobsPage = lazyComponent(() => import("./pages/JobsPage/JobsPage.tsx").then((module) => module.JobsPage));
const MailPage = lazyComponent(() => import("./pages/MailPage/MailPage.tsx").then((module) => module.MailPage));
const MemoriesPage = lazyComponent(() => import("./pages/MemoriesPage/MemoriesPage.tsx").then((module) => module.MemoriesPage));
const NotesPage = lazyComponent(() => import("./pages/NotesPage/NotesPage.tsx").then((module) => module.NotesPage));
const NotFoundPage = lazyComponent(() => import("./pages/NotFoundPage/NotFoundPage.tsx").then((module) => module.NotFoundPage));
const TasksPage = lazyComponent(() => import("./pages/TasksPage/TasksPage.tsx").then((module) => module.TasksPage));
const ToolsPage = lazyComponent(() => import("./pages/ToolsPage/ToolsPage.tsx").then((module) => module.ToolsPage));
const WebhooksPage = lazyComponent(() => import("./pages/WebhooksPage/WebhooksPage.tsx").then((module) => module.WebhooksPage));
const WorkspacePage = lazyComponent(() => import("./pages/WorkspacePage/WorkspacePage.tsx").then((module) => module.WorkspacePage));
const WorkspacesPage = lazyComponent(() => import("./pages/WorkspacesPage/WorkspacesPage.tsx").then((module) => module.WorkspacesPage));

function RouteError() {
  return <PageError error={useRouteError()} />;
}

/** The console lives under /console/ (the API serves it there). */
const router = createBrowserRouter(
  [
    {
      path: "/",
      element: <AppShell />,
      errorElement: <RouteError />,
      children: [
        { index: true, element: <Navigate to="/chats" replace /> },
        {
          path: "chats",
          element: <ChatsPage />,
          children: [
            { index: true, element: <ChatsIndex /> },
            { path: ":chatId", element: <ChatPage section="conversation" /> },
            { path: ":chatId/grants", element: <ChatPage section="grants" /> },
            { path: ":chatId/history", element: <ChatPage section="history" /> },
          ],
        },
        { path: "approvals", element: <ApprovalsPage /> },
        { path: "workspaces", element: <WorkspacesPage /> },
        { path: "workspaces/:workspaceId", element: <WorkspacePage /> },
        { path: "documents", element: <DocumentsPage /> },
        { path: "documents/:documentId", element: <DocumentsPage /> },
        { path: "tools", element: <ToolsPage /> },
        { path: "jobs", element: <JobsPage /> },
        { path: "mail", element: <MailPage /> },
        { path: "notes", element: <NotesPage /> },
        { path: "tasks", element: <TasksPage /> },
        { path: "calendar", element: <CalendarPage /> },
        { path: "memories", element: <MemoriesPage /> },
        { path: "webhooks", element: <WebhooksPage /> },
        { path: "admin", element: <AdminPage /> },
        { path: "*", element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: "/console" },
);

/**
 * The signed-in console: App loads this file (with react-router and AppShell) only once there is a
 * token, so the sign-in form needs neither.
 */
export function ConsoleRouter() {
  return <RouterProvider router={router} />;
}
