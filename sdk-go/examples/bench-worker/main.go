// The Go side of `npm run bench -- --go`: workflows of 5 steps and of 1 step,
// each step returning a small JSON value. It drains on SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"os/signal"
	"syscall"

	workflow "sluice.dev/sdk-go"
)

func main() {
	workflow.RegisterWorkflow("go-five", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			if err := ctx.Step.Run(name, nil, func() (any, error) { return 1, nil }); err != nil {
				return err
			}
		}
		return nil
	})
	workflow.RegisterWorkflow("go-one", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		return ctx.Step.Run("only", nil, func() (any, error) { return 1, nil })
	})
	// A fan-out of payload.n task children started together: one suspend for the workflow
	// code, written in parts when the children are over the SDK's park budget.
	workflow.RegisterWorkflow("go-fanout", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
		var p struct {
			N int `json:"n"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return ctx.Fail(err)
		}
		calls := make([]workflow.ChildCall, p.N)
		for i := range calls {
			calls[i] = workflow.ChildCall{Name: "item", Task: "item", Payload: map[string]int{"i": i}}
		}
		errs, err := ctx.Step.Children(calls)
		if err != nil {
			return err
		}
		for _, e := range errs {
			if e != nil {
				return ctx.Fail(e)
			}
		}
		return nil
	}, workflow.WithTask("item", func(ctx *workflow.WorkflowContext, _ json.RawMessage) error {
		return ctx.SetResult(1)
	}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log.Printf("bench-worker: ready")
	if err := workflow.RunWorker(ctx); err != nil {
		log.Fatal(err)
	}
}
