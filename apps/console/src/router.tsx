import { type ComponentType, lazy } from "react";
import { createBrowserRouter, Navigate, useRouteError } from "react-router";
import { RouterProvider } from "react-router/dom";
import { AppShell } from "./components/AppShell/AppShell.tsx";
import { PageError } from "./components/ErrorBoundary/ErrorBoundary.tsx";
import { loadCode } from "./lib/load-code.ts";

/**
 * A page loaded from its own file the first time it is shown: signing in, and each page, fetch and
 * compile only the code they use (markdown-it, for one, comes with the chat and documents pages
 * only). Meanwhile the Suspense boundaries in AppShell and ChatsPage show a loading status.
 */
function lazyPage<Props extends object>(load: () => Promise<ComponentType<Props>>) {
  return lazy(async () => ({ default: await loadCode(load) }));
}

const AdminPage = lazyPage(() => import("./pages/AdminPage/AdminPage.tsx").then((module) => module.AdminPage));
const ApprovalsPage = lazyPage(() => import("./pages/ApprovalsPage/ApprovalsPage.tsx").then((module) => module.ApprovalsPage));
const CalendarPage = lazyPage(() => import("./pages/CalendarPage/CalendarPage.tsx").then((module) => module.CalendarPage));
const ChatPage = lazyPage(() => import("./pages/ChatPage/ChatPage.tsx").then((module) => module.ChatPage));
const ChatsIndex = lazyPage(() => import("./pages/ChatsPage/ChatsPage.tsx").then((module) => module.ChatsIndex));
const ChatsPage = lazyPage(() => import("./pages/ChatsPage/ChatsPage.tsx").then((module) => module.ChatsPage));
const DocumentsPage = lazyPage(() => import("./pages/DocumentsPage/DocumentsPage.tsx").then((module) => module.DocumentsPage));
const JobsPage = lazyPage(() => import("./pages/JobsPage/JobsPage.tsx").then((module) => module.JobsPage));
const MailPage = lazyPage(() => import("./pages/MailPage/MailPage.tsx").then((module) => module.MailPage));
const MemoriesPage = lazyPage(() => import("./pages/MemoriesPage/MemoriesPage.tsx").then((module) => module.MemoriesPage));
const NotesPage = lazyPage(() => import("./pages/NotesPage/NotesPage.tsx").then((module) => module.NotesPage));
const NotFoundPage = lazyPage(() => import("./pages/NotFoundPage/NotFoundPage.tsx").then((module) => module.NotFoundPage));
const TasksPage = lazyPage(() => import("./pages/TasksPage/TasksPage.tsx").then((module) => module.TasksPage));
const ToolsPage = lazyPage(() => import("./pages/ToolsPage/ToolsPage.tsx").then((module) => module.ToolsPage));
const WebhooksPage = lazyPage(() => import("./pages/WebhooksPage/WebhooksPage.tsx").then((module) => module.WebhooksPage));
const WorkspacePage = lazyPage(() => import("./pages/WorkspacePage/WorkspacePage.tsx").then((module) => module.WorkspacePage));
const WorkspacesPage = lazyPage(() => import("./pages/WorkspacesPage/WorkspacesPage.tsx").then((module) => module.WorkspacesPage));

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
