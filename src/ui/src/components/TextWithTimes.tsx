/** A server-written sentence with its ISO times shown as the UI shows times (`lib/text-times.ts`). */
import { timestamp } from "../lib/format";
import { splitTimes } from "../lib/text-times";

/** See the module comment; each time is a `<time>` with its exact instant on hover. */
export function TextWithTimes({ text }: { text: string }) {
  return (
    <>
      {splitTimes(text).map((part, i) =>
        "iso" in part ? (
          <time key={i} dateTime={part.iso} title={part.iso}>
            {timestamp(part.iso)}
          </time>
        ) : (
          <span key={i}>{part.text}</span>
        ),
      )}
    </>
  );
}
