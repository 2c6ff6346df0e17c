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
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log.Printf("bench-worker: ready")
	if err := workflow.RunWorker(ctx); err != nil {
		log.Fatal(err)
	}
}
