import { type RefObject, useEffect, useRef } from "react";

/** How close to the bottom counts as "reading the latest": 120 px. */
const NEAR_BOTTOM_PX = 120;

/** The element that scrolls `element`: which one depends on the layout (a column on wide screens, the page on narrow ones). */
function scrollParent(element: HTMLElement | null): HTMLElement | null {
  for (let current = element; current; current = current.parentElement) {
    const overflow = getComputedStyle(current).overflowY;
    if ((overflow === "auto" || overflow === "scroll") && current.scrollHeight > current.clientHeight) return current;
  }
  return document.scrollingElement instanceof HTMLElement ? document.scrollingElement : null;
}

/**
 * Keeps the conversation scrolled to its end while new content arrives (`trigger` changes), unless
 * the person has scrolled up to read.
 */
export function useStickToBottom(element: RefObject<HTMLElement | null>, trigger: unknown): void {
  const stuck = useRef(true);

  useEffect(() => {
    // Scroll events do not bubble; captured at the document, whichever element scrolls.
    const onScroll = (event: Event) => {
      const scroller = scrollParent(element.current);
      if (scroller && (event.target === scroller || (event.target === document && scroller === document.scrollingElement))) {
        stuck.current = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < NEAR_BOTTOM_PX;
      }
    };
    document.addEventListener("scroll", onScroll, { capture: true, passive: true });
    return () => document.removeEventListener("scroll", onScroll, { capture: true });
  }, [element]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `trigger` is what changes the content
  useEffect(() => {
    const scroller = scrollParent(element.current);
    if (scroller && stuck.current) scroller.scrollTop = scroller.scrollHeight;
  }, [element, trigger]);
}
