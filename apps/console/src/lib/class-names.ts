/** Joins the class names that are set: `classNames(styles.button, primary && styles.primary)`. */
export function classNames(...names: (string | false | null | undefined)[]): string {
  return names.filter(Boolean).join(" ");
}
