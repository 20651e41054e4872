package models_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/nqueens/configurator/internal/web/models"
)

func Example() {
	ctx := context.Background()
	store, err := models.New(models.Config{Bytes: 64 << 20, Slots: 2}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		panic(err)
	}
	defer store.Close()

	src := []byte("features\n\tShop\n\t\talternative\n\t\t\tOnline\n\t\t\tStore\n\t\toptional\n\t\t\tDelivery\nconstraints\n\tDelivery => Online\n")
	info, created, err := store.Add(ctx, "shop.uvl", src, "")
	if err != nil {
		panic(err)
	}
	fmt.Println(info.Name, info.Format, info.Features, "features,", info.Constraints, "constraint; new:", created)
	_, created, _ = store.Add(ctx, "shop.uvl", src, "")
	fmt.Println("the same file again is new:", created)

	m, _, err := store.Model(ctx, info.ID)
	if err != nil {
		panic(err)
	}
	for _, f := range m.Features {
		fmt.Println(f.Name)
	}
	// Output:
	// shop uvl 4 features, 1 constraint; new: true
	// the same file again is new: false
	// Shop
	// Online
	// Store
	// Delivery
}
