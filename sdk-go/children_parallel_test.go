package workflow

import (
	"encoding/json"
	"errors"
	"testing"
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
