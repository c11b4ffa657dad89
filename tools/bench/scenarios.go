package main

import (
	"fmt"
	"strconv"
	"strings"
)

// Phase is one CLI command of a scenario.
type Phase struct {
	// Label names the phase's row in the table.
	Label string
	// Config replaces the configuration before the command ("" keeps it).
	Config string
	// Args are the CLI's arguments (-parallelism is added).
	Args []string
	// Setup marks a phase that only prepares or clears the stage: it is run, not tabled.
	Setup bool
	// Servers, when set, adds the requests per server to the row.
	Servers int
	// Memory adds the provider's peak memory to the row.
	Memory bool
	// Empty requires the plan to show no change (-detailed-exitcode 0).
	Empty bool
	// Timeline runs the command with -json and reports, for its median repetition, when each
	// resource's change started and finished (timeline.go).
	Timeline bool
}

// Scenario is a stack and what is done with it; its last phase destroys everything.
type Scenario struct {
	Name   string
	Phases []Phase
	// Baseline names the scenario this one is compared with: the ratio of their first phases'
	// wall times ends the report, and when the baseline runs right before this one, the two
	// alternate repetition by repetition (paired repetitions on the same machine state).
	Baseline string
}

var (
	applyArgs   = []string{"apply", "-auto-approve"}
	destroyArgs = []string{"destroy", "-auto-approve"}
)

// scenarioNames are the scenarios `make bench` runs, in order.
var scenarioNames = []string{"reference", "reference-split", "servers-10", "servers-50", "servers-200", "loadbalancer"}

// NewScenario is the scenario called name: reference, reference-split, servers-N or
// loadbalancer.
func NewScenario(name string) (Scenario, error) {
	reference := func(stack string) []Phase {
		return []Phase{
			{Label: "apply", Config: stack, Args: applyArgs, Timeline: true},
			{Label: "plan (no-op)", Args: []string{"plan", "-detailed-exitcode"}, Empty: true},
			{Label: "destroy", Args: destroyArgs},
		}
	}

	switch {
	case name == "reference":
		return Scenario{Name: name, Phases: reference(referenceStack())}, nil

	case name == "reference-split":
		return Scenario{Name: name, Phases: reference(referenceSplitStack()), Baseline: "reference"}, nil

	case strings.HasPrefix(name, "servers-"):
		n, err := strconv.Atoi(strings.TrimPrefix(name, "servers-"))
		if err != nil || n < 1 {
			return Scenario{}, fmt.Errorf("scenario %q: servers-N takes a positive number", name)
		}

		return Scenario{Name: name, Phases: []Phase{
			{Label: "apply", Config: serverStack(n), Args: applyArgs, Servers: n},
			{Label: "plan -refresh-only", Args: []string{"plan", "-refresh-only"}, Servers: n, Memory: true},
			{Label: "destroy", Args: destroyArgs, Servers: n},
		}}, nil

	case name == "loadbalancer":
		return Scenario{Name: name, Phases: []Phase{
			{Label: "identity + network", Config: baseStack(), Args: applyArgs, Setup: true},
			{Label: "apply: create", Config: loadBalancerStack(1), Args: applyArgs},
			{Label: "apply: 1 weight", Config: loadBalancerStack(5), Args: applyArgs},
			{Label: "apply: destroy", Config: baseStack(), Args: applyArgs},
			{Label: "destroy the rest", Args: destroyArgs, Setup: true},
		}}, nil
	}

	return Scenario{}, fmt.Errorf("unknown scenario %q (reference, reference-split, servers-N, loadbalancer)", name)
}
