package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestChildrenStartsEveryChildInOneParkThenReturnsEachResultOrError(t *testing.T) {
	f := newFakeServer(t, nil)
	calls := func(outs []int) []ChildCall {
		cs := make([]ChildCall, 3)
		for i := range cs {
			cs[i] = ChildCall{Name: "double", Workflow: "double", Payload: map[string]int{"n": i}, Out: &outs[i]}
		}
		cs[2].Opts = ChildOpts{ConcurrencyKey: "k", ConcurrencyLimit: 2}
		return cs
	}

	e, ctx := newTestExec(f, testClaim())
	outs := make([]int, 3)
	if _, err := ctx.Step.Children(calls(outs)); !errors.Is(err, ErrParked) {
		t.Fatalf("first call: want ErrParked, got %v", err)
	}
	if !e.park.AwaitChildren || len(e.park.Children) != 3 {
		t.Fatalf("one park with the three children: %+v", e.park)
	}
	keys := []string{e.park.Children[0].Key, e.park.Children[1].Key, e.park.Children[2].Key}
	if keys[0] != "double" || keys[1] != "double#2" || keys[2] != "double#3" || e.park.Children[2].Concurrency == nil {
		t.Fatalf("children: %+v", e.park.Children)
	}
	if string(e.park.Children[1].Payload) != `{"n":1}` || e.park.Children[1].Position != 1 {
		t.Fatalf("second child: %+v", e.park.Children[1])
	}

	// One still running: park again, creating nothing.
	pe, pending := newTestExec(f, testClaim(
		journalEntry{Key: "double", Kind: "task", Status: "done", Value: json.RawMessage(`0`)},
		journalEntry{Key: "double#2", Kind: "task", Status: "pending"},
		journalEntry{Key: "double#3", Kind: "task", Status: "done", Value: json.RawMessage(`4`)},
	))
	if _, err := pending.Step.Children(calls(make([]int, 3))); !errors.Is(err, ErrParked) {
		t.Fatalf("a pending child: want ErrParked, got %v", err)
	}
	if !pe.park.AwaitChildren || len(pe.park.Children) != 0 {
		t.Fatalf("re-park without new children: %+v", pe.park)
	}

	// All finished, one failed: results decoded, the failure reported for its call only.
	_, done := newTestExec(f, testClaim(
		journalEntry{Key: "double", Kind: "task", Status: "done", Value: json.RawMessage(`0`)},
		journalEntry{Key: "double#2", Kind: "task", Status: "error", Error: json.RawMessage(`{"name":"Error","message":"boom","code":"B"}`), ChildID: strPtr("c2")},
		journalEntry{Key: "double#3", Kind: "task", Status: "done", Value: json.RawMessage(`4`)},
	))
	outs = make([]int, 3)
	errs, err := done.Step.Children(calls(outs))
	if err != nil {
		t.Fatalf("finished children: %v", err)
	}
	var ce *ChildError
	if errs[0] != nil || errs[2] != nil || !errors.As(errs[1], &ce) || ce.Key != "double#2" || ce.Code != "B" {
		t.Fatalf("errors: %v", errs)
	}
	if outs[0] != 0 || outs[2] != 4 {
		t.Fatalf("results: %v", outs)
	}
	if len(f.paths("")) != 0 {
		t.Fatalf("Children wrote directly: %v", f.paths(""))
	}
}

func TestParkChunksKeepEveryRequestUnderTheBudgetInOrder(t *testing.T) {
	var kids []childWrite
	for i := 0; i < 300; i++ {
		kids = append(kids, childWrite{Key: fmt.Sprintf("item#%d", i), Position: i, Task: "item", Payload: json.RawMessage(`{"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`)})
	}
	chunks := parkChunks(kids, 4096)
	if len(chunks) < 4 {
		t.Fatalf("want several chunks, got %d", len(chunks))
	}
	n := 0
	for _, c := range chunks {
		raw, _ := json.Marshal(c)
		if len(raw) > 4096 {
			t.Fatalf("a chunk of %d bytes is over the budget", len(raw))
		}
		for _, k := range c {
			if k.Position != n {
				t.Fatalf("chunks out of order at %d: %+v", n, k)
			}
			n++
		}
	}
	if n != 300 || len(parkChunks(nil, 4096)) != 1 {
		t.Fatalf("want every child once and one (empty) chunk for none; got %d", n)
	}
}

var registerFanOutOnce sync.Once

func TestALargeFanOutIsWrittenAsChildrenWritesThenOnePark(t *testing.T) {
	registerFanOutOnce.Do(func() {
		RegisterWorkflow("t-fanout", func(ctx *WorkflowContext, _ json.RawMessage) error {
			calls := make([]ChildCall, 200)
			for i := range calls {
				calls[i] = ChildCall{Name: "item", Task: "item", Payload: map[string]int{"i": i}}
			}
			_, err := ctx.Step.Children(calls)
			return err
		}, WithTask("item", func(*WorkflowContext, json.RawMessage) error { return nil }))
	})
	defer func(b int) { parkBytes = b }(parkBytes)
	parkBytes = 2048
	f := newFakeServer(t, nil)
	w := NewWorker(f.client(), WorkerOptions{})
	c := testClaim()
	c.Workflow = "t-fanout"
	w.execute(newExecution(context.Background(), w.outbox, c, time.Second))
	count := map[string]int{}
	for _, p := range f.paths("/api/worker/runs/run-1/") {
		count[p]++
	}
	if count["children"] < 3 || count["park"] != 1 || count["finish"] != 0 {
		t.Fatalf("want children writes then one park, got %v", f.paths(""))
	}
	park := f.last("/api/worker/runs/run-1/park")
	if park["awaitChildren"] != true || len(park["children"].([]any)) == 0 {
		t.Fatalf("park: %v", park)
	}
}
