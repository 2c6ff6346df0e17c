/**
 * DuckLake's type promotions (pure): the changes of a column's type the specification allows
 * without rewriting data files ("Schema Evolution", "Type Promotion"). A promoted column keeps
 * its `column_id` and gets a new version in `ducklake_column` with the wider type; files
 * written before it hold the old type and are cast to the new one when read. Only these:
 *
 * | from      | to                           |
 * | --------- | ---------------------------- |
 * | `int8`    | `int16`, `int32`, `int64`    |
 * | `int16`   | `int32`, `int64`             |
 * | `int32`   | `int64`                      |
 * | `uint8`   | `uint16`, `uint32`, `uint64` |
 * | `uint16`  | `uint32`, `uint64`           |
 * | `uint32`  | `uint64`                     |
 * | `float32` | `float64`                    |
 */

const PROMOTIONS: Readonly<Record<string, readonly string[]>> = {
  int8: ["int16", "int32", "int64"],
  int16: ["int32", "int64"],
  int32: ["int64"],
  uint8: ["uint16", "uint32", "uint64"],
  uint16: ["uint32", "uint64"],
  uint32: ["uint64"],
  float32: ["float64"],
};

/** Whether DuckLake allows a column of type `from` to become type `to` (DuckLake type names). */
export function isPromotion(from: string, to: string): boolean {
  return PROMOTIONS[from.trim().toLowerCase()]?.includes(to.trim().toLowerCase()) ?? false;
}
