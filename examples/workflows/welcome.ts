// The demo `sluice dev examples` enqueues on start (see ../sluice.json).
import { defineWorkflow } from "sluice";

type WelcomePayload = { name: string };

export default defineWorkflow<WelcomePayload>("welcome", {
  retries: 2,
  handler: async (payload, ctx) => {
    const greeting = await ctx.run("compose-greeting", (step) => {
      step.logger.info("composing", { for: payload.name });
      return `Hello, ${payload.name}!`;
    });
    // Checkpointed: a crash after this point never repeats the step above.
    const startedAt = await ctx.run("remember-time", () => new Date().toISOString());
    await ctx.sleep("short-pause", 500);
    console.log(`${greeting} (started ${startedAt})`);
    return { greeting, startedAt };
  },
});
