/** The names a lake may have (`ducklake://<name>`): they name its catalog file and data folder. Pure. */
const LAKE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** What {@link isLakeName} accepts, for error messages. */
export const LAKE_NAME_RULE = "letters, digits, _ and - (at most 64), e.g. ducklake://main";

/** Whether `name` may name a lake. */
export function isLakeName(name: string): boolean {
  return LAKE_NAME.test(name);
}
