package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// logsServer is a fake server that records, in arrival order, each log line's message
// and ts, and the finish (as "finish").
type logsServer struct {
	// refuse503 answers this many log writes with 503 (a database refusal: the SDK retries).
	refuse503 int
	// refuse500 answers this many log writes with 500 (the SDK keeps the lines and tries again later).
	refuse500 int
	mu        sync.Mutex
	events    []string
	ts        map[string]int64
	f         *fakeServer
}

func newLogsServer(t *testing.T) *logsServer {
	s := &logsServer{ts: map[string]int64{}}
	s.f = newFakeServer(t, func(path string, body map[string]any) (int, any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch path {
		case "/api/worker/runs/run-1/logs":
			if s.refuse503 > 0 {
				s.refuse503--
				return 503, map[string]any{"error": map[string]any{"code": "STORAGE_ERROR", "message": "busy"}}
			}
			if s.refuse500 > 0 {
				s.refuse500--
				return 500, map[string]any{"error": map[string]any{"code": "INTERNAL", "message": "internal error"}}
			}
			// A slow write: a flush still in flight when the claim ends must land before its finish.
			time.Sleep(30 * time.Millisecond)
			var refused []any
			for i, raw := range body["lines"].([]any) {
				l := raw.(map[string]any)
				msg := l["message"].(string)
				ts, timed := l["ts"].(float64)
				// A line "skewed" with a ts is refused alone, as the server refuses a ts too far ahead.
				if msg == "skewed" && timed {
					refused = append(refused, map[string]any{"line": i, "code": "INVALID_LINE", "message": "ts ahead"})
					continue
				}
				s.events = append(s.events, msg)
				s.ts[msg] = int64(ts)
			}
			if refused != nil {
				return 200, map[string]any{"accepted": len(body["lines"].([]any)) - len(refused), "refused": refused}
			}
		case "/api/worker/runs/run-1/finish":
			s.events = append(s.events, "finish:"+body["outcome"].(string))
		}
		return 200, map[string]any{}
	})
	return s
}

func (s *logsServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

func TestLogLinesReachTheServerWhileTheRunRunsWithTheirTimes(t *testing.T) {
	defer func(d time.Duration) { logFlushEvery = d }(logFlushEvery)
	logFlushEvery = 100 * time.Millisecond
	for _, outcome := range []string{"succeeded", "retry"} {
		s := newLogsServer(t)
		sentMidRun := false
		w := &Worker{defs: map[string]*definition{"wf": {Name: "wf", handler: func(ctx *WorkflowContext, _ json.RawMessage) error {
			ctx.Logger.Info("first")
			time.Sleep(400 * time.Millisecond)
			for _, e := range s.seen() {
				sentMidRun = sentMidRun || e == "first"
			}
			ctx.Logger.Info("second")
			if outcome == "retry" {
				ctx.Logger.Error("giving up")
				return errors.New("flaky")
			}
			return nil
		}}}}
		c := testClaim()
		c.ClaimedAt = 1_000_000
		w.execute(newExecution(context.Background(), newOutbox(s.f.client()), c, time.Second))
		if !sentMidRun {
			t.Fatalf("%s: the first line had not reached the server 400 ms after it was logged: %v", outcome, s.seen())
		}
		want := []string{"first", "second", "finish:" + outcome}
		if outcome == "retry" {
			want = []string{"first", "second", "giving up", "finish:retry"}
		}
		if got := s.seen(); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: got %v, want %v (every line before the finish)", outcome, got, want)
		}
		// Each line's ts is when it was logged, on the claim's clock.
		first, second := s.ts["first"], s.ts["second"]
		if first < 1_000_000 || first > 1_000_050 || second-first < 380 || second-first > 1_000 {
			t.Fatalf("%s: ts first=%d second=%d", outcome, first, second)
		}
	}
}

func TestNoLogLineIsSentAfterTheClaimEnded(t *testing.T) {
	s := newLogsServer(t)
	e := newExecution(context.Background(), newOutbox(s.f.client()), testClaim(), time.Second)
	e.log("info", "last", "")
	e.endLogs()
	e.log("info", "late", "")
	time.Sleep(logFlushEvery + 100*time.Millisecond)
	if got := s.seen(); len(got) != 1 || got[0] != "last" {
		t.Fatalf("got %v", got)
	}
}

func TestLinesOfAFlushBeingRetriedLandBeforeTheFinish(t *testing.T) {
	defer func(d time.Duration) { logFlushEvery = d }(logFlushEvery)
	logFlushEvery = 50 * time.Millisecond
	s := newLogsServer(t)
	s.refuse503 = 1
	w := &Worker{defs: map[string]*definition{"wf": {Name: "wf", handler: func(ctx *WorkflowContext, _ json.RawMessage) error {
		ctx.Logger.Error("about to fail")
		// The flush starts and is refused once; the handler fails while it waits to retry.
		time.Sleep(100 * time.Millisecond)
		return errors.New("flaky")
	}}}}
	w.execute(newExecution(context.Background(), newOutbox(s.f.client()), testClaim(), time.Second))
	if got, want := s.seen(), []string{"about to fail", "finish:retry"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestLinesOfALogWriteAnswered5xxAreKeptAndSentLaterWhileTheRunRuns(t *testing.T) {
	defer func(d time.Duration) { logFlushEvery = d }(logFlushEvery)
	logFlushEvery = 50 * time.Millisecond
	s := newLogsServer(t)
	s.refuse500 = 2
	sentMidRun := false
	w := &Worker{defs: map[string]*definition{"wf": {Name: "wf", handler: func(ctx *WorkflowContext, _ json.RawMessage) error {
		ctx.Logger.Info("first")
		time.Sleep(800 * time.Millisecond)
		for _, e := range s.seen() {
			sentMidRun = sentMidRun || e == "first"
		}
		ctx.Logger.Info("second")
		return nil
	}}}}
	w.execute(newExecution(context.Background(), newOutbox(s.f.client()), testClaim(), time.Second))
	if got, want := s.seen(), []string{"first", "second", "finish:succeeded"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !sentMidRun {
		t.Fatalf("the first line, refused twice with 500, was not sent again while the run ran")
	}
}

func TestALogLineRefusedForItsTimeIsSentAgainWithoutIt(t *testing.T) {
	s := newLogsServer(t)
	e := newExecution(context.Background(), newOutbox(s.f.client()), testClaim(), time.Second)
	e.log("info", "before", "")
	e.log("info", "skewed", "")
	e.log("info", "after", "")
	e.endLogs()
	if got, want := s.seen(), []string{"before", "after", "skewed"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if s.ts["skewed"] != 0 {
		t.Fatalf("the refused line was sent again with ts %d, want none", s.ts["skewed"])
	}
}

func TestTheLogBufferKeepsTheNewestLinesAndCountsTheDropped(t *testing.T) {
	defer func(n int) { maxBufferedLogLines = n }(maxBufferedLogLines)
	maxBufferedLogLines = 3
	var b logBuffer
	for i := 1; i <= 4; i++ {
		b.add(logLine{Message: fmt.Sprint(i), Ts: int64(i)})
	}
	lines, dropped := b.take()
	if dropped != 1 || len(lines) != 4 || !strings.HasPrefix(lines[0].Message, "sluice: 1 log line(s) dropped here") || lines[0].Ts != 2 || lines[1].Message != "2" {
		t.Fatalf("dropped %d, lines %v", dropped, lines)
	}
	// The send failed: back ahead of a newer line, the oldest dropped again, and counted with the first.
	b.add(logLine{Message: "5", Ts: 5})
	b.putBack(lines, dropped)
	again, dropped := b.take()
	var got []string
	for _, l := range again {
		got = append(got, l.Message)
	}
	if dropped != 2 || !reflect.DeepEqual(got[1:], []string{"3", "4", "5"}) || !strings.HasPrefix(got[0], "sluice: 2 log line(s) dropped here") {
		t.Fatalf("dropped %d, lines %v", dropped, got)
	}
	if _, d := b.take(); d != 0 {
		t.Fatalf("an empty buffer still counts %d dropped", d)
	}
}
