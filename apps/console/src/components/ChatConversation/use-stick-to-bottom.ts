import { type RefObject, useCallback, useEffect, useRef } from "react";

/** How close to the bottom counts as "reading the latest": 120 px. */
const NEAR_BOTTOM_PX = 120;

/**
 * Keeps a scrolling element at its bottom while new content arrives, unless the person has scrolled
 * up to read. Returns the scroll handler to attach.
 */
export function useStickToBottom(element: RefObject<HTMLElement | null>, trigger: unknown): () => void {
  const stuck = useRef(true);
  const onScroll = useCallback(() => {
    const current = element.current;
    if (current) stuck.current = current.scrollHeight - current.scrollTop - current.clientHeight < NEAR_BOTTOM_PX;
  }, [element]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `trigger` is what changes the content
  useEffect(() => {
    const current = element.current;
    if (current && stuck.current) current.scrollTop = current.scrollHeight;
  }, [element, trigger]);
  return onScroll;
}
