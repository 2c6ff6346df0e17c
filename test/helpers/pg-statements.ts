/**
 * Records the statements sent on any pg client (as `pgDriver()` loads it) and when each was
 * answered: how the Postgres store's tests count a batch's statements and round trips.
 */
import { pgDriver } from "../../src/store/postgres/driver.js";

/**
 * Records the statements sent on any pg client, and when each was answered, until `stop`;
 * `sent` has each statement with its parameters.
 */
export function recordStatements(): {
  texts: string[];
  sent: Array<{ text: string; values: unknown[] }>;
  stop: () => void;
} {
  const texts: string[] = [];
  const sent: Array<{ text: string; values: unknown[] }> = [];
  const proto = pgDriver().Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, config: unknown, ...rest: unknown[]) {
    const text = typeof config === "string" ? config : (config as { text: string }).text;
    const values = Array.isArray(rest[0]) ? rest[0] : ((config as { values?: unknown[] }).values ?? []);
    texts.push(text);
    sent.push({ text, values });
    const answered = () => texts.push(`answered ${text.split(/\s/)[0]}`);
    const cb = rest.findIndex((a) => typeof a === "function");
    if (cb >= 0) {
      const callback = rest[cb] as (...a: unknown[]) => unknown;
      rest[cb] = (...a: unknown[]) => (answered(), callback(...a));
      return query.call(this, config, ...rest);
    }
    const answer = query.call(this, config, ...rest) as Promise<unknown>;
    void answer.then(answered, () => {});
    return answer;
  };
  return { texts, sent, stop: () => (proto.query = query) };
}

/** Runs `work` while {@link recordStatements} records: its value, and the statements it sent. */
export async function withStatements<T>(work: () => Promise<T>): Promise<{ value: T; texts: string[] }> {
  const sent = recordStatements();
  try {
    return { value: await work(), texts: sent.texts };
  } finally {
    sent.stop();
  }
}
