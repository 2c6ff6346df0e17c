package workflow

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Logger writes lines to the run's log (shown by `sluice logs`, the UI and the API)
// and to the worker's stderr.
type Logger struct {
	exec    *execution
	stepKey string
}

// Debug logs at level debug.
func (l *Logger) Debug(format string, args ...any) { l.line("debug", format, args) }

// Info logs at level info.
func (l *Logger) Info(format string, args ...any) { l.line("info", format, args) }

// Warn logs at level warn.
func (l *Logger) Warn(format string, args ...any) { l.line("warn", format, args) }

// Error logs at level error.
func (l *Logger) Error(format string, args ...any) { l.line("error", format, args) }

func (l *Logger) line(level, format string, args []any) {
	l.exec.log(level, fmt.Sprintf(format, args...), l.stepKey)
}

// logFlushEvery bounds how long a logged line waits in the buffer while the run runs.
var logFlushEvery = time.Second

// log buffers a line for the run's log, stamped with the time it was logged (the claim's
// clock); a flush within logFlushEvery sends it, and the claim's end sends what is left.
func (e *execution) log(level, message, stepKey string) {
	fmt.Fprintf(os.Stderr, "[%s %s] %s: %s\n", e.claim.Workflow, e.claim.RunID, level, message)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lost {
		e.tellLostLocked()
		return
	}
	if e.logsEnded {
		return // the claim has ended: the server would drop the line
	}
	e.logs.add(logLine{Level: level, Message: message, StepKey: stepKey, Ts: e.now()})
	if e.logTimer == nil {
		e.logTimer = time.AfterFunc(logFlushEvery, e.flushLogs)
	}
}

// flushLogs sends the buffered lines. Flushes run one at a time, so lines arrive in order
// and all of them before the claim's end. A send that fails for a reason worth retrying
// (a 5xx, no answer) keeps its lines in the buffer for a later flush (after a growing
// wait), or, at the claim's end, is retried until the claim's lease would have run out.
// The lines of a lost claim are not sent: the server would drop them (stderr says so once).
func (e *execution) flushLogs() {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	e.mu.Lock()
	lines, dropped := e.logs.take()
	e.logTimer = nil
	ended := e.logsEnded
	e.mu.Unlock()
	if len(lines) == 0 {
		return
	}
	deadline := time.Now().Add(time.Duration(e.claim.LeaseMs) * time.Millisecond)
	for attempt := 1; ; attempt++ {
		err := e.sendLogs(lines)
		e.mu.Lock()
		switch {
		case err == nil:
			e.logFailures = 0
		case e.lost || errors.Is(err, ErrLeaseLost):
			e.tellLostLocked()
		case !retryableLogWrite(err):
			fmt.Fprintf(os.Stderr, "sluice worker: run %s: %d log line(s) not written: %v\n", e.claim.RunID, len(lines), err)
		case !ended:
			// Kept for a later flush, ahead of the lines logged meanwhile.
			e.logs.putBack(lines, dropped)
			e.logFailures++
			if e.logTimer == nil {
				e.logTimer = time.AfterFunc(backoff(logFlushEvery, 30*time.Second, e.logFailures), e.flushLogs)
			}
		case time.Now().After(deadline):
			fmt.Fprintf(os.Stderr, "sluice worker: run %s: %d log line(s) not written: the server did not take them within the claim's lease (%v)\n", e.claim.RunID, len(lines), err)
		default:
			e.mu.Unlock()
			fmt.Fprintf(os.Stderr, "sluice worker: run %s: logs failed (%v); retrying\n", e.claim.RunID, err)
			time.Sleep(backoff(250*time.Millisecond, 5*time.Second, attempt))
			continue
		}
		e.mu.Unlock()
		return
	}
}

// sendLogs writes lines of the claim. A line the server refuses for its own fields (a ts
// too far ahead of its clock) is sent once more without its ts, so the server stamps it
// with the time it receives it; a server from before per-line refusals refuses the whole
// request (400 INVALID_BODY), which is then sent once more without times.
func (e *execution) sendLogs(lines []logLine) error {
	var answer struct {
		Refused []struct {
			Line    int    `json:"line"`
			Message string `json:"message"`
		} `json:"refused"`
	}
	err := e.write("logs", e.logsBody(lines), &answer)
	var api *APIError
	if errors.As(err, &api) && api.Status == 400 && api.Code == "INVALID_BODY" {
		fmt.Fprintf(os.Stderr, "sluice worker: run %s: the server refused log lines (%s); sending them again without their times\n", e.claim.RunID, api.Message)
		return e.write("logs", e.logsBody(untimed(lines)), nil)
	}
	if err != nil || len(answer.Refused) == 0 {
		return err
	}
	again := make([]logLine, 0, len(answer.Refused))
	for _, r := range answer.Refused {
		fmt.Fprintf(os.Stderr, "sluice worker: run %s: the server refused a log line (%s); sending it again without its time\n", e.claim.RunID, r.Message)
		if r.Line >= 0 && r.Line < len(lines) && lines[r.Line].Ts != 0 {
			again = append(again, lines[r.Line])
		}
	}
	if len(again) == 0 {
		return nil
	}
	if err := e.write("logs", e.logsBody(untimed(again)), nil); err != nil {
		fmt.Fprintf(os.Stderr, "sluice worker: run %s: %d refused log line(s) not written: %v\n", e.claim.RunID, len(again), err)
	}
	return nil
}

func (e *execution) logsBody(lines []logLine) map[string]any {
	return map[string]any{"token": e.claim.Token, "attempt": e.claim.Attempt, "lines": lines}
}

// untimed is lines without their ts (the server stamps each with the time it receives it).
func untimed(lines []logLine) []logLine {
	out := make([]logLine, len(lines))
	for i, l := range lines {
		l.Ts = 0
		out[i] = l
	}
	return out
}

// retryableLogWrite: a failed send of lines worth trying again (no answer, or a 5xx or 429
// answer: the server or a proxy in front of it could not take them now).
func retryableLogWrite(err error) bool {
	var api *APIError
	if !errors.As(err, &api) {
		return true
	}
	return api.Status >= 500 || api.Status == 429
}

// tellLostLocked says once on stderr that this claim's lines are no longer written (e.mu held).
func (e *execution) tellLostLocked() {
	if e.lostTold {
		return
	}
	e.lostTold = true
	fmt.Fprintf(os.Stderr, "sluice worker: run %s: this claim's lease is lost (the run was cancelled, or claimed again after its lease expired): its log lines from here on are not written\n", e.claim.RunID)
}

// endLogs sends the last lines of the claim before it parks or finishes, after any flush
// still in flight; lines logged afterwards are not sent.
func (e *execution) endLogs() {
	e.mu.Lock()
	e.logsEnded = true
	if e.logTimer != nil {
		e.logTimer.Stop()
	}
	e.mu.Unlock()
	e.flushLogs()
}
