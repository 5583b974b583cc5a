package features

import (
	"os"
	"testing"

	"github.com/cucumber/godog"

	"herd/events/pgtest"
)

// TestMain stops the specs' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }

// TestFeatures runs every *.feature file in this directory against herd
// on its default engine, SQLite, each scenario as a subtest with a world
// of its own: a fresh data directory, a fake clock and a freshly started
// herd.
func TestFeatures(t *testing.T) {
	runFeatures(t, "", nil)
}

// TestFeaturesOnPostgres runs them again with herd's log and views in
// PostgreSQL, each scenario on a fresh database, but for the scenarios
// tagged @sqlite: what herd does on SQLite alone (a full disk under its
// file).
func TestFeaturesOnPostgres(t *testing.T) {
	pgtest.Server(t) // skips, saying why, when PostgreSQL cannot be had
	runFeatures(t, "~@sqlite", func() (*pgtest.Database, error) { return pgtest.NewDatabase(t) })
}

// runFeatures runs the scenarios that tags select (all for ""); database,
// when set, makes each scenario the PostgreSQL database herd runs on,
// dropped when the scenario ends.
func runFeatures(t *testing.T, tags string, database func() (*pgtest.Database, error)) {
	suite := godog.TestSuite{
		Name:                "herd",
		ScenarioInitializer: func(sc *godog.ScenarioContext) { initializeScenario(sc, database) },
		Options: &godog.Options{
			Format:   "pretty",
			Paths:    []string{"."},
			Tags:     tags,
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
func initializeScenario(sc *godog.ScenarioContext, database func() (*pgtest.Database, error)) {
	w := &world{database: database}
	sc.Before(w.start)
	sc.After(w.stop)
	w.registerHerdSteps(sc)
	w.registerNodeSteps(sc)
	w.registerHeartbeatSteps(sc)
	w.registerLogSteps(sc)
	w.registerRejectionSteps(sc)
	w.registerHealthSteps(sc)
	w.registerHerdRestartSteps(sc)
	w.registerKubeletSteps(sc)
	w.registerPodSteps(sc)
	w.registerSchedulingSteps(sc)
	w.registerPicoSteps(sc)
	w.registerConfigMapSteps(sc)
	w.registerReplicaSetSteps(sc)
	w.registerDeploymentSteps(sc)
	w.registerTimeTravelSteps(sc)
	w.registerWhySteps(sc)
	w.registerWhatIfSteps(sc)
	w.registerDisruptionBudgetSteps(sc)
	w.registerJobSteps(sc)
	w.registerCronJobSteps(sc)
	w.registerDaemonSetSteps(sc)
	w.registerStatefulSetSteps(sc)
	w.registerAuthSteps(sc)
	w.registerWebViewSteps(sc)
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
	w.registerOverloadSteps(sc)
	w.registerEventSteps(sc)
	w.registerGarbageCollectionSteps(sc)
}
