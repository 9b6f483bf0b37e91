import { createBrowserRouter, Navigate, useRouteError } from "react-router";
import { AppShell } from "./components/AppShell/AppShell.tsx";
import { PageError } from "./components/ErrorBoundary/ErrorBoundary.tsx";
import { AdminPage } from "./pages/AdminPage/AdminPage.tsx";
import { ApprovalsPage } from "./pages/ApprovalsPage/ApprovalsPage.tsx";
import { CalendarPage } from "./pages/CalendarPage/CalendarPage.tsx";
import { ChatPage } from "./pages/ChatPage/ChatPage.tsx";
import { ChatsIndex, ChatsPage } from "./pages/ChatsPage/ChatsPage.tsx";
import { DocumentsPage } from "./pages/DocumentsPage/DocumentsPage.tsx";
import { JobsPage } from "./pages/JobsPage/JobsPage.tsx";
import { MailPage } from "./pages/MailPage/MailPage.tsx";
import { MemoriesPage } from "./pages/MemoriesPage/MemoriesPage.tsx";
import { NotesPage } from "./pages/NotesPage/NotesPage.tsx";
import { NotFoundPage } from "./pages/NotFoundPage/NotFoundPage.tsx";
import { TasksPage } from "./pages/TasksPage/TasksPage.tsx";
import { ToolsPage } from "./pages/ToolsPage/ToolsPage.tsx";
import { WebhooksPage } from "./pages/WebhooksPage/WebhooksPage.tsx";
import { WorkspacePage } from "./pages/WorkspacePage/WorkspacePage.tsx";
import { WorkspacesPage } from "./pages/WorkspacesPage/WorkspacesPage.tsx";

function RouteError() {
  return <PageError error={useRouteError()} />;
}

/** The console lives under /console/ (the API serves it there). */
export const router = createBrowserRouter(
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
