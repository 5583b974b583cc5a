package features

import (
	"testing"

	"github.com/cucumber/godog"
)

// TestFeatures runs every *.feature file in this directory, each scenario
// as a subtest with a world of its own: a fresh data directory, a fake
// clock and a freshly started herd.
func TestFeatures(t *testing.T) {
	suite := godog.TestSuite{
		Name:                "herd",
		ScenarioInitializer: initializeScenario,
		Options: &godog.Options{
			Format:   "pretty",
			Paths:    []string{"."},
			TestingT: t,
			Strict:   true,
		},
	}
	if suite.Run() != 0 {
		t.Fatal("the behaviour specs failed")
	}
}

// initializeScenario gives one scenario its world and binds the steps to
// it. godog calls it once per scenario, so nothing is shared between them.
func initializeScenario(sc *godog.ScenarioContext) {
	w := &world{}
	sc.Before(w.start)
	sc.After(w.stop)
	w.registerHerdSteps(sc)
	w.registerNodeSteps(sc)
	w.registerHeartbeatSteps(sc)
	w.registerLogSteps(sc)
	w.registerRejectionSteps(sc)
	w.registerHealthSteps(sc)
	w.registerKubeletSteps(sc)
	w.registerPodSteps(sc)
	w.registerSchedulingSteps(sc)
	w.registerPicoSteps(sc)
	w.registerConfigMapSteps(sc)
	w.registerAuthSteps(sc)
	w.registerIdentitySteps(sc)
	w.registerFullDiskSteps(sc)
	w.registerTerminationSteps(sc)
	w.registerIPAMSteps(sc)
	w.registerWatchSteps(sc)
	w.registerZoneSteps(sc)
	w.registerAgentSteps(sc)
	w.registerAgentSignalSteps(sc)
	w.registerRetentionSteps(sc)
	w.registerNamespaceSteps(sc)
	w.registerLeaseSteps(sc)
	w.registerEventSteps(sc)
}
