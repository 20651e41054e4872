package models_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/internal/web/models"
)

func Example() {
	ctx := context.Background()
	store, err := models.New(models.Config{Bytes: 64 << 20, Deadline: time.Minute, Slots: 2},
		[]configurator.Backend{sat.New(sat.Options{})}, slog.New(slog.NewTextHandler(io.Discard, nil)))
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

	sp, err := store.Space(ctx, info.ID, "sat")
	if err != nil {
		panic(err)
	}
	m := sp.FeatureModel()
	delivery, _ := m.ID("Delivery")
	d, err := sp.Domains(ctx, []configurator.Decision{{Feature: delivery, Select: true}})
	if err != nil {
		panic(err)
	}
	for f, st := range d.States {
		fmt.Println(m.Features[f].Name, st)
	}
	// Output:
	// shop uvl 4 features, 1 constraint; new: true
	// the same file again is new: false
	// Shop forced_on
	// Online forced_on
	// Store forced_off
	// Delivery select
}
