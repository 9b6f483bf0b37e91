// A few stroke icons drawn inline as SVG elements (no icon font, no request to another origin).
const PATHS = {
  chats: "M4 5h16v10H8l-4 4V5z",
  approvals: "M12 3l7 3v5c0 4.5-3 8-7 10-4-2-7-5.5-7-10V6l7-3zm-3 9l2 2 4-4",
  workspaces: "M3 7a2 2 0 012-2h4l2 2h8a2 2 0 012 2v8a2 2 0 01-2 2H5a2 2 0 01-2-2V7z",
  tools: "M14.7 6.3a4 4 0 00-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 005.4-5.4l-2.6 2.6-2.4-.6-.6-2.4 2.6-2.6z",
  jobs: "M4 5h16v14H4V5zm3 4l3 3-3 3m5 0h5",
  mail: "M3 6h18v12H3V6zm0 0l9 7 9-7",
  admin:
    "M12 15a3 3 0 100-6 3 3 0 000 6zm7.4-3a7.4 7.4 0 00-.1-1.3l2-1.6-2-3.4-2.4 1a7.4 7.4 0 00-2.2-1.3L14.3 3h-4l-.4 2.4a7.4 7.4 0 00-2.2 1.3l-2.4-1-2 3.4 2 1.6a7.4 7.4 0 000 2.6l-2 1.6 2 3.4 2.4-1a7.4 7.4 0 002.2 1.3l.4 2.4h4l.4-2.4a7.4 7.4 0 002.2-1.3l2.4 1 2-3.4-2-1.6c.1-.4.1-.9.1-1.3z",
  menu: "M4 7h16M4 12h16M4 17h16",
  close: "M6 6l12 12M18 6L6 18",
  plus: "M12 5v14M5 12h14",
  back: "M15 6l-6 6 6 6",
  file: "M7 3h7l5 5v13H7V3zm7 0v5h5",
  folder: "M3 7a2 2 0 012-2h4l2 2h8a2 2 0 012 2v8a2 2 0 01-2 2H5a2 2 0 01-2-2V7z",
  chevron: "M9 6l6 6-6 6",
  copy: "M9 9h11v11H9V9zm-5 6V4h11",
  notes: "M6 3h12v18H6V3zm3 5h6m-6 4h6m-6 4h4",
  tasks: "M4 6l2 2 3-3m-5 8l2 2 3-3m3-5h8m-8 7h8m-8 5h8",
  calendar: "M4 6h16v14H4V6zm0 4h16M8 3v5m8-5v5",
  memories: "M12 4a6 6 0 00-4 10.5V18h8v-3.5A6 6 0 0012 4zm-3 17h6",
  webhooks: "M9.5 7.5a3 3 0 114.2 2.8L16 15m-9.2-1.5a3 3 0 104.2 3.5h6M17 18a3 3 0 10-1-5.8",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16, className }: { name: IconName; size?: number; className?: string }) {
  return (
    <svg
      className={className}
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
