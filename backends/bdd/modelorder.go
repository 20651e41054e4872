package bdd

import (
	"errors"
	"fmt"

	"github.com/nqueens/configurator/backends/bdd/varorder"
)

// ModelOrder is the heuristic that gives a feature model's diagram the
// variable order its compile starts from; the compile sifts the order
// further as the diagram grows (see compileModel).
type ModelOrder uint8

const (
	// OrderAuto is the heuristic that compiles the real models fastest:
	// OrderForce.
	OrderAuto ModelOrder = iota
	// OrderModel keeps the features in the model's own order: the
	// feature tree's pre-order for a UVL model (each feature after its
	// parent, each subtree in one piece), the file's variable order for a
	// DIMACS one.
	OrderModel
	// OrderForce moves the features that occur together in the model's
	// terms (a clause, a group with its parent, a constraint) close to one
	// another by FORCE (package varorder), from the model's order, then
	// moves each feature on its own to where the terms' spans are least
	// (varorder.Sift): FORCE leaves long the terms whose features are
	// pulled apart by their others.
	OrderForce
)

var modelOrderNames = [...]string{OrderAuto: "auto", OrderModel: "model", OrderForce: "force"}

// String is the heuristic's name as ParseModelOrder accepts it.
func (o ModelOrder) String() string {
	if int(o) < len(modelOrderNames) {
		return modelOrderNames[o]
	}
	return fmt.Sprintf("ModelOrder(%d)", uint8(o))
}

// ErrModelOrder reports a name ParseModelOrder does not know.
var ErrModelOrder = errors.New("unknown variable order (want auto, model or force)")

// ParseModelOrder parses a heuristic's name: auto, model or force.
func ParseModelOrder(s string) (ModelOrder, error) {
	for o, name := range modelOrderNames {
		if s == name {
			return ModelOrder(o), nil
		}
	}
	return 0, fmt.Errorf("variable order %q: %w", s, ErrModelOrder)
}

// resolve returns the heuristic OrderAuto stands for.
func (o ModelOrder) resolve() ModelOrder {
	if o == OrderAuto {
		return OrderForce
	}
	return o
}

// startOrder returns the order, by the heuristic o, that compiling
// these terms over n variables starts from: order[l] the variable at
// level l.
func startOrder(n int, terms []term, o ModelOrder) ([]int, error) {
	return startOrderOf(hypergraph(n, terms), o)
}

// startOrderOf returns the order, by the heuristic o, of the variables of
// h.
func startOrderOf(h *varorder.Hypergraph, o ModelOrder) ([]int, error) {
	order := varorder.Identity(h.N)
	switch o.resolve() {
	case OrderModel:
		return order, nil
	case OrderForce:
		return varorder.Sift(h, varorder.Force(h, order)), nil
	}
	return nil, fmt.Errorf("bdd: %v: %w", o, ErrModelOrder)
}

// hypergraph is the structure of a model's terms: one edge for each term,
// its variables.
func hypergraph(n int, terms []term) *varorder.Hypergraph {
	h := &varorder.Hypergraph{N: n, Edges: make([][]int32, len(terms))}
	for i := range terms {
		h.Edges[i] = terms[i].vars
	}
	return h
}

// featureOrder returns the order, by the heuristic o, that compiling
// these terms over the variables of red starts from, found over the n
// features of the model: the terms' edges over their features, the
// features that no term mentions in no edge (FORCE keeps them in their
// places, anchors of the model's order), the order of the variables of
// the compile taken from the features'.
func featureOrder(n int, red *reduction, terms []term, o ModelOrder) ([]int, error) {
	h := &varorder.Hypergraph{N: n, Edges: make([][]int32, len(terms))}
	for i := range terms {
		e := make([]int32, len(terms[i].vars))
		for k, v := range terms[i].vars {
			e[k] = int32(red.vars[v])
		}
		h.Edges[i] = e
	}
	full, err := startOrderOf(h, o)
	if err != nil {
		return nil, err
	}
	order := make([]int, 0, len(red.vars))
	for _, f := range full {
		if v := red.index[f]; v >= 0 {
			order = append(order, int(v))
		}
	}
	return order, nil
}
