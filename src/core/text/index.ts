/**
 * Text a person reads: what cannot be shown as it is (invisible, bidirectional controls,
 * look-alikes) and its visible escapes.
 * @module
 */
export { escapeCodePoint, hiddenKind, HIDDEN_KIND_TITLES, isRightToLeft, type HiddenKind } from "./classify";
export {
  hiddenCount,
  holdsRightToLeft,
  visibleParts,
  visibleText,
  type HiddenPart,
  type PlainPart,
  type VisibleOptions,
  type VisiblePart,
} from "./visible";
