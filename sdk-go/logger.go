package workflow

import (
	"fmt"
	"os"
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

// log buffers a line for the run's log; the worker sends the buffer before the claim ends.
func (e *execution) log(level, message, stepKey string) {
	fmt.Fprintf(os.Stderr, "[%s %s] %s: %s\n", e.claim.Workflow, e.claim.RunID, level, message)
	e.mu.Lock()
	e.logs = append(e.logs, logLine{Level: level, Message: message, StepKey: stepKey})
	e.mu.Unlock()
}

// flushLogs sends the buffered lines (lines of a lost claim are dropped by the server).
func (e *execution) flushLogs() {
	e.mu.Lock()
	lines := e.logs
	e.logs = nil
	e.mu.Unlock()
	if len(lines) == 0 {
		return
	}
	_ = e.write("logs", map[string]any{"token": e.claim.Token, "attempt": e.claim.Attempt, "lines": lines}, nil)
}
