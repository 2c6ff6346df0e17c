package workflow

import "fmt"

// maxBufferedLogLines bounds the lines a claim keeps while the server cannot take them
// (a 5xx, a dropped connection): past it the oldest are dropped, and counted.
var maxBufferedLogLines = 10_000

// logBuffer is a claim's log lines not yet written: those logged since the last send,
// and those of sends that failed for a reason worth retrying, oldest first. It holds at
// most maxBufferedLogLines; the lines it had to drop are counted and told by one marker
// line at the head of the next send. Not safe for concurrent use (the execution's mu
// guards it).
type logBuffer struct {
	lines   []logLine
	dropped int
}

// add appends a line, dropping the oldest one when full.
func (b *logBuffer) add(l logLine) {
	b.lines = append(b.lines, l)
	b.trim()
}

// take empties the buffer: its lines, with a marker line first when some were dropped,
// and how many were dropped (to give back with putBack).
func (b *logBuffer) take() ([]logLine, int) {
	lines, dropped := b.lines, b.dropped
	b.lines, b.dropped = nil, 0
	if dropped > 0 && len(lines) > 0 {
		marker := logLine{Level: "warn", Ts: lines[0].Ts, Message: fmt.Sprintf(
			"sluice: %d log line(s) dropped here: the server could not take them for a while and the worker keeps at most %d", dropped, maxBufferedLogLines)}
		lines = append([]logLine{marker}, lines...)
	}
	return lines, dropped
}

// putBack returns the lines of a send that failed (as take gave them, marker included)
// ahead of the lines logged since, dropping the oldest past the bound.
func (b *logBuffer) putBack(lines []logLine, dropped int) {
	if dropped > 0 && len(lines) > 0 {
		lines = lines[1:] // the marker: made again by the next take
	}
	b.lines = append(append([]logLine(nil), lines...), b.lines...)
	b.dropped += dropped
	b.trim()
}

func (b *logBuffer) trim() {
	if over := len(b.lines) - maxBufferedLogLines; over > 0 {
		b.lines = append([]logLine(nil), b.lines[over:]...)
		b.dropped += over
	}
}
