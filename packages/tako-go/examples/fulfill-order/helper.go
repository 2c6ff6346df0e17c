package main

import "log"

// fulfillOrder is the app-owned helper the seed's example calls (not part of the seed's code).
func fulfillOrder(orderID, idempotencyKey string) error {
	log.Printf("fulfilling %s (key %s)", orderID, idempotencyKey)
	return nil
}
