import { describe, expect, it } from "vitest";
import { boundsOf, openingViewport } from "./graph-viewport";

const limits = { padding: 10, minZoom: 0.7, maxZoom: 1 };

describe("openingViewport", () => {
  it("fits and centres a graph that is readable when fitted", () => {
    const v = openingViewport({ x: 0, y: 0, width: 500, height: 100 }, 1000, 400, limits);
    expect(v).toEqual({ x: 250, y: 150, zoom: 1 });
  });

  it("opens a wide graph at the smallest readable zoom, its left edge in view, centred vertically", () => {
    const v = openingViewport({ x: 40, y: 0, width: 3000, height: 200 }, 1000, 400, limits);
    expect(v.zoom).toBe(0.7);
    expect(v.x).toBeCloseTo(10 - 40 * 0.7);
    expect(v.y).toBeCloseTo((400 - 200 * 0.7) / 2);
  });

  it("shrinks a graph that still fits above the floor", () => {
    const v = openingViewport({ x: 0, y: 0, width: 1225, height: 100 }, 1000, 400, limits);
    expect(v.zoom).toBeCloseTo(0.8);
    expect(v.x).toBeCloseTo(10);
  });
});

describe("boundsOf", () => {
  it("spans every rectangle", () => {
    expect(
      boundsOf([
        { x: 10, y: 5, width: 20, height: 10 },
        { x: -5, y: 30, width: 10, height: 10 },
      ]),
    ).toEqual({ x: -5, y: 5, width: 35, height: 35 });
    expect(boundsOf([])).toEqual({ x: 0, y: 0, width: 0, height: 0 });
  });
});
