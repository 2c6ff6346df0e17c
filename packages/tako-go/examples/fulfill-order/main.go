// cmd/worker/main.go
package main

import (
    "context"
    "encoding/json"
    "log"

    workflow "github.com/tako-sh/tako/sdk/go"
)

func main() {
    workflow.RegisterWorkflow("fulfill-order", func(ctx *workflow.WorkflowContext, raw json.RawMessage) error {
        var payload struct { OrderID string `json:"orderId"` }
        if err := json.Unmarshal(raw, &payload); err != nil {
            return ctx.Fail(err)
        }
        return ctx.Step.Run("fulfill", nil, func() (any, error) {
            // Your helper must use the stable key to deduplicate external effects.
            return nil, fulfillOrder(payload.OrderID, ctx.RunID+":fulfill")
        })
    }, workflow.WithMaxAttempts(5))
    if err := workflow.RunWorker(context.Background()); err != nil {
        log.Fatal(err)
    }
}
