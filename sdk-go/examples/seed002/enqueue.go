// Package seed002 holds the Go examples of seed 002 (Tako's workflow docs), copied
// unchanged apart from the import path, so `go vet ./...` proves they compile.
package seed002

import (
    "context"
    workflow "sluice.dev/sdk-go"
)

func enqueueOrder(ctx context.Context, orderID string) (string, error) {
    result, err := workflow.Enqueue(ctx, "fulfill-order",
        map[string]string{"orderId": orderID}, workflow.EnqueueOpts{})
    if err != nil { return "", err }
    return result.ID, nil
}
