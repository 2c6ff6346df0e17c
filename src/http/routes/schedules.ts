/** `GET /api/schedules` (with next fire times), `POST /api/schedules/:workflow/pause` and `/resume`. */
import type { Hono } from "hono";
import { fireTimesBetween, parseSchedule } from "../../core/cron.js";
import type { ScheduleRecord } from "../../store/types.js";
import type { ApiSchedule } from "../api-types.js";
import { requireScope } from "../auth/identity.js";
import type { AppDeps, AppEnv } from "../context.js";
import { NotFoundError } from "../errors.js";
import { readJsonBody } from "../json-body.js";
import { bodyObject } from "../input.js";
import { scheduleView } from "../views.js";

/** Upcoming fire times listed per schedule. */
const UPCOMING = 5;
const YEAR_MS = 366 * 86_400_000;

function upcoming(s: ScheduleRecord, now: number): number[] {
  try {
    const from = s.nextAt !== null ? s.nextAt - 1 : now;
    return fireTimesBetween(parseSchedule({ cron: s.cron, timezone: s.timezone }), from, from + YEAR_MS, UPCOMING);
  } catch {
    return s.nextAt === null ? [] : [s.nextAt];
  }
}

/** Registers the schedule routes. */
export function scheduleRoutes(app: Hono<AppEnv>, deps: AppDeps): void {
  const { store } = deps.engine;

  app.get("/api/schedules", requireScope("read"), async (c) => {
    const now = deps.clock.now();
    const schedules: ApiSchedule[] = (await store.listSchedules()).map((s) => scheduleView(s, upcoming(s, now)));
    return c.json({ schedules });
  });

  for (const action of ["pause", "resume"] as const) {
    app.post(`/api/schedules/:workflow/${action}`, requireScope("operate"), async (c) => {
      const workflow = c.req.param("workflow");
      bodyObject(await readJsonBody(c, deps.limits), "{}");
      if (!(await store.setSchedulePaused(workflow, action === "pause"))) {
        throw new NotFoundError(
          `workflow ${JSON.stringify(workflow)} has no schedule: see GET /api/schedules`,
          "SCHEDULE_NOT_FOUND",
        );
      }
      const s = (await store.listSchedules()).find((x) => x.workflow === workflow)!;
      return c.json({ schedule: scheduleView(s, upcoming(s, deps.clock.now())) });
    });
  }
}
