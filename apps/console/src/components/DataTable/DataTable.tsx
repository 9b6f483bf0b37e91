import type { ReactNode } from "react";
import styles from "./DataTable.module.css";

/** A column's header: its text, or a label only screen readers read (a column of buttons). */
export type DataTableColumn = string | { visuallyHidden: string };

export interface DataTableProps {
  /** What the table lists, for screen readers (the caption is visually hidden). */
  caption: string;
  /** The column headers, in order (each label once). */
  columns: readonly DataTableColumn[];
  /** The body's rows (`<tr>` elements). */
  children: ReactNode;
  /** An extra class for the scrolling wrapper (a margin). Default none. */
  className?: string;
}

/**
 * A list as a table: the console's `.data-table` look (styles/global.css), a hidden caption, one
 * header row, and a wrapper that scrolls sideways when the columns are wider than the page.
 */
export function DataTable({ caption, columns, children, className }: DataTableProps) {
  return (
    <div className={className === undefined ? styles.scroller : `${styles.scroller} ${className}`}>
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === "string" ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.visuallyHidden} scope="col">
                  <span className="visually-hidden">{column.visuallyHidden}</span>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
