// Package seed002 holds the Go examples of seed 002 (Tako's workflow docs), copied
// unchanged (import path included), so `go vet ./...` proves they compile against Sluice.
package seed002

import (
    "context"
    workflow "github.com/tako-sh/tako/sdk/go"
)

func enqueueOrder(ctx context.Context, orderID string) (string, error) {
    result, err := workflow.Enqueue(ctx, "fulfill-order",
        map[string]string{"orderId": orderID}, workflow.EnqueueOpts{})
    if err != nil { return "", err }
    return result.ID, nil
}
