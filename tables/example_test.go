package tables_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/tables"
)

// A wallet debit and its ledger row commit together or not at all, and a
// concurrent change to the wallet makes the transaction run again.
func ExampleUpdate() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	debit := func(player string, amount int) error {
		return tables.Update(ctx, client, "cm", func(ctx context.Context, tx *tables.Tx) error {
			raw, _, err := tx.Get(ctx, "wallets", player)
			if err != nil {
				return err
			}
			balance, _ := strconv.Atoi(string(raw))
			if balance < amount {
				return errors.New("insufficient balance")
			}
			if err := tx.Put("wallets", player, []byte(strconv.Itoa(balance-amount))); err != nil {
				return err
			}
			_, err = tx.Append(ctx, "ledger", echomq.F("player", player, "delta", strconv.Itoa(-amount)))
			return err
		}, nil)
	}
	_ = tables.Update(ctx, client, "cm", func(ctx context.Context, tx *tables.Tx) error {
		return tx.Put("wallets", "PLR1", []byte("10"))
	}, nil)

	fmt.Println(debit("PLR1", 7))
	fmt.Println(debit("PLR1", 7))
	balance, _, _ := tables.New(client, "cm", "wallets").Get(ctx, "PLR1")
	rows, _ := client.Stream("cm", "ledger").Read(ctx, echomq.All, nil)
	fmt.Println(string(balance), len(rows))
	// Output:
	// <nil>
	// insufficient balance
	// 3 1
}
