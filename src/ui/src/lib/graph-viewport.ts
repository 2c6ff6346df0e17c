/**
 * Where a graph opens: fitted to its box when that keeps the labels readable, else at the
 * smallest readable zoom with its start (left, for a left-to-right graph) in view, so a
 * wide pipeline opens legible and is panned rather than shrunk to unreadable boxes. Pure.
 */

/** A rectangle in graph or screen pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A React Flow viewport: the graph is drawn at `zoom`, shifted by `x`, `y` screen pixels. */
export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

/** Limits of {@link openingViewport}. */
export interface ViewportLimits {
  /** Margin kept around the graph, in screen pixels. */
  padding: number;
  /** Below this zoom the labels are unreadable: the graph is panned instead. */
  minZoom: number;
  /** Small graphs are not blown up past this. */
  maxZoom: number;
}

/** The bounding box of `rects` (a zero box at the origin when there are none). */
export function boundsOf(rects: readonly Rect[]): Rect {
  if (rects.length === 0) return { x: 0, y: 0, width: 0, height: 0 };
  const left = Math.min(...rects.map((r) => r.x));
  const top = Math.min(...rects.map((r) => r.y));
  const right = Math.max(...rects.map((r) => r.x + r.width));
  const bottom = Math.max(...rects.map((r) => r.y + r.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/**
 * The opening viewport of a graph with bounds `graph` in a box `width`×`height`: the zoom that
 * fits it, clamped to the limits; each axis centred when it fits, else starting at its top/left.
 */
export function openingViewport(graph: Rect, width: number, height: number, limits: ViewportLimits): Viewport {
  const room = (size: number) => Math.max(1, size - 2 * limits.padding);
  const fit = Math.min(room(width) / Math.max(1, graph.width), room(height) / Math.max(1, graph.height));
  const zoom = Math.min(limits.maxZoom, Math.max(limits.minZoom, fit));
  const place = (start: number, extent: number, box: number) =>
    extent * zoom <= room(box) ? (box - extent * zoom) / 2 - start * zoom : limits.padding - start * zoom;
  return { x: place(graph.x, graph.width, width), y: place(graph.y, graph.height, height), zoom };
}
