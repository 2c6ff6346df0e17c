// A cron workflow: every weekday at 09:00 in Paris.
import { defineWorkflow } from "sluice";

export default defineWorkflow("nightly-report", {
  schedule: { cron: "0 9 * * 1-5", timezone: "Europe/Paris" },
  handler: async (_payload, ctx) => {
    const rows = await ctx.run("count-rows", () => 42);
    ctx.logger.info("report ready", { rows });
    return { rows };
  },
});
