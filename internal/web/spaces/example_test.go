package spaces_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/nqueens/configurator/backends/sat"
	"github.com/nqueens/configurator/configurator"
	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/internal/web/models"
	"github.com/nqueens/configurator/internal/web/spaces"
)

// Example compiles an uploaded feature model and a built-in board in the
// one cache, the model read from the store of models.
func Example() {
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, err := models.New(models.Config{Bytes: 64 << 20, Slots: 2}, log)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	read := func(ctx context.Context, id string) (*feature.Model, int64, error) {
		m, _, err := store.Model(ctx, id)
		if err != nil {
			return nil, 0, err
		}
		return m, models.Bytes(m), nil
	}
	cache := spaces.New([]configurator.Backend{sat.New(sat.Options{})}, read,
		spaces.Config{Bytes: 1 << 30, Deadline: time.Minute, Slots: 2, Grace: time.Second}, log, nil)
	defer cache.Close()

	src := []byte("features\n\tShop\n\t\talternative\n\t\t\tOnline\n\t\t\tStore\n\t\toptional\n\t\t\tDelivery\nconstraints\n\tDelivery => Online\n")
	info, _, err := store.Add(ctx, "shop.uvl", src, "")
	if err != nil {
		panic(err)
	}
	sp, err := cache.Get(ctx, spaces.ModelKey("sat", info.ID))
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

	board, err := cache.Get(ctx, cache.Key("sat", 6, configurator.RowMajor))
	if err != nil {
		panic(err)
	}
	d, err = board.Domains(ctx, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("queens-6:", board.FeatureModel().Features[0].Name, d.States[0], d.Configurations)
	// Output:
	// Shop forced_on
	// Online forced_on
	// Store forced_off
	// Delivery select
	// queens-6: a1 forced_off 4
}
