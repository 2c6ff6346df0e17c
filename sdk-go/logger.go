package workflow

import (
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
	if e.logsEnded {
		return // the claim has ended: the server would drop the line
	}
	e.logs = append(e.logs, logLine{Level: level, Message: message, StepKey: stepKey, Ts: e.now()})
	if e.logTimer == nil {
		e.logTimer = time.AfterFunc(logFlushEvery, e.flushLogs)
	}
}

// flushLogs sends the buffered lines (lines of a lost claim are dropped by the server).
// Flushes run one at a time, so lines arrive in order and all of them before the claim's end.
func (e *execution) flushLogs() {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	e.mu.Lock()
	lines := e.logs
	e.logs = nil
	e.logTimer = nil
	e.mu.Unlock()
	if len(lines) == 0 {
		return
	}
	_ = e.write("logs", map[string]any{"token": e.claim.Token, "attempt": e.claim.Attempt, "lines": lines}, nil)
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
