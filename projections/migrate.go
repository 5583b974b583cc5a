package projections

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"herd/events"
	"herd/projections/viewstore"
)

// described are the object model's kinds' tables, made from their
// descriptions rather than from migration files, by name: each described
// by its kind (describeJSONRows) as the package's variables are made,
// before anything migrates.
var described = map[string]viewstore.Table{}

// describeTable keeps t among the described tables, in place of any
// description of its name before (a jsonRows given a controller after),
// and returns the schema its statements are made from.
func describeTable(t viewstore.Table) viewstore.Schema {
	described[t.Name] = t
	return t.Schema()
}

// describedTables are the kinds' described tables in name order, then
// the tables of viewstore's own stores (viewstore.Tables).
func describedTables() []viewstore.Table {
	out := make([]viewstore.Table, 0, len(described))
	for _, name := range slices.Sorted(maps.Keys(described)) {
		out = append(out, described[name])
	}
	return append(out, viewstore.Tables()...)
}

// retiredSQLite and retiredPostgres are each engine's history of the
// views' files, every one of which the descriptions replaced (the
// tables', node_rows', and on SQLite the nodes' split, which
// viewstore.DB's SplitNodesTable and splitNodeRows do): recorded as
// applied once the tables are as described, so that a herd from before
// them opens a database this one made. Their versions are never used
// again (a database that applied the file would take a new one of the
// same version for a file changed after it was applied).
var retiredSQLite = []events.RetiredMigration{
	{Version: 1, Name: "0001_nodes.sql", Checksum: "876cb823b1f8a69c477e8b0ba326f40df41827af49918017a90e7b3380019ccf"},
	{Version: 2, Name: "0002_pods.sql", Checksum: "ff0189380e479c8e5f930e50a127060eb905b0f5a0000fb49d096a1c652278a7"},
	{Version: 3, Name: "0003_configmaps.sql", Checksum: "4dce55be709021523c0103485f9c1531488e2275337c8839af57326c52f3011e"},
	{Version: 4, Name: "0004_ipam.sql", Checksum: "ae8f4d69ddb000c52fa5fe8a3706d8af52bfc81c2fe36496d44191db20b65855"},
	{Version: 5, Name: "0005_kubelet_targets.sql", Checksum: "9d01fdc215b0f8aa97161bbebca3bca58d42cfbc591cf01f7afe5156028733c4"},
	{Version: 6, Name: "0006_nodes_deadline_index.sql", Checksum: "f74744f56eb1d052b3d5ca62e387b97a10e839c9d7c74dd1a4cb41b821d3fa8b"},
	{Version: 7, Name: "0007_nodes_drain_noexecute_index.sql", Checksum: "917cc04efab967a4123380a8894785658be9eedef6f4629747a33796e8f9f479"},
	{Version: 8, Name: "0008_nodes_taint_check_index.sql", Checksum: "433fd72aa4a4873e95fee73c26b826fbc0f482d101ae34882a3fb063835a84a8"},
	{Version: 9, Name: "0009_node_timeline_type.sql", Checksum: "22ecce71c2647f81cda2d1888a58a4b20d80bfb59496a40ff3f4f7870e916f97"},
	{Version: 10, Name: "0010_namespaces.sql", Checksum: "b758f0b2fefbaba087ea4dbb529585534ea2e77a9cecd6a46aa4be0c50c88df6"},
	{Version: 11, Name: "0011_leases.sql", Checksum: "3c56a7595bbb10ef8e1b277d73e6ee96fb12b5df4fd514ac418c8992d35976a5"},
	{Version: 12, Name: "0012_node_heartbeats.sql", Checksum: "f106e412dcdff4e298b632ca1f2cea322ed1a8a09792eb7eb1e543ed7a411ac1"},
	{Version: 13, Name: "0013_leases_renewed_at.sql", Checksum: "10ba895aa4669f29577a14ead8e53e55488182e48b5dca3993f9ab2cfc59d5bf"},
	{Version: 14, Name: "0014_replicasets.sql", Checksum: "0513e4f69ed335d179f991e4e4aac3958daae5be958e340335e6920afc308908"},
	{Version: 15, Name: "0015_deployments.sql", Checksum: "1005271700ea46edc6236c3d442b86107924a139b0958c299d66e2c35372a966"},
	{Version: 16, Name: "0016_poddisruptionbudgets.sql", Checksum: "290f86618178f97cc3c86d131c1b780c0ad2a841db0adefc33f379ea46a0a4a6"},
	{Version: 17, Name: "0017_jobs.sql", Checksum: "f063147d97cfad13e8686977936b542ecad5c37cf3d719400e3427eba590888a"},
	{Version: 18, Name: "0018_daemonsets.sql", Checksum: "ed20b9c33b921b7d676b80c425aa09d242fe2216b87c44d5adcd5bc861105a5f"},
	{Version: 19, Name: "0019_pods_by_controller.sql", Checksum: "7931c1e5c25ab2f67d8a9d15a96bb09fda252316b717d3c7de816b2a1f3cca7e"},
	{Version: 20, Name: "0020_replicasets_by_controller.sql", Checksum: "20c323dcb29c11db7b2f6060feccecb938569325c78aad608fbc2020f2684b49"},
	{Version: 21, Name: "0021_ip_pools_free.sql", Checksum: "ad2e15fd472f0fe9e91a3ecc400f7be337423748bfbf0986cd3a9344f496848e"},
	{Version: 22, Name: "0022_cronjobs.sql", Checksum: "5be6e69afc3b827eb617a08d218ad127c1dd94b7c1e288995e93f493be491c76"},
	{Version: 23, Name: "0023_statefulsets.sql", Checksum: "099eff3dccfb5b3329ea1ca0eb5e955770050f6e5aa190c44958662bacf674bc"},
	{Version: 24, Name: "0024_controllerrevisions.sql", Checksum: "f58ff6936bcc00b1d18b7c8507eed4da36b7814facbd216a19c267ebc48c7cae"},
	{Version: 25, Name: "0025_ip_allocations_by_name.sql", Checksum: "75218387345a8539c2842b193f37748bf923fa726a64bb8815445db5f558cb09"},
	{Version: 26, Name: "0026_node_timeline_more.sql", Checksum: "2c89beb6010f4b2d6f3808a02f40d7f2e5334a31c3c85816e0a5bcebe439204c"},
}

var retiredPostgres = []events.RetiredMigration{
	{Version: 1, Name: "0001_leases.sql", Checksum: "793ce3fc8d133fe0f313226980a29d6c9c088921154eb2e6241c4f680e4317a6"},
	{Version: 2, Name: "0002_views.sql", Checksum: "d7cab238dc8ba04fc109f3d06b9aeef0c6bf1992002eb3eeb00450f290bcf2be"},
	{Version: 3, Name: "0003_replicasets.sql", Checksum: "82eddc002693bcd11c707dd96cb9007e2ff5b2d8ee8b242945f993c02e27c37e"},
	{Version: 4, Name: "0004_deployments.sql", Checksum: "d0cd2d6f43fbda68e528e178bf05a62f3ac1c14b2a474fe0b1904c3c5fee4a06"},
	{Version: 5, Name: "0005_poddisruptionbudgets.sql", Checksum: "b90215286cd86dc1c8b8ad8eb2e760ecce7bee9fbbfa7032d77484070d25d71d"},
	{Version: 6, Name: "0006_jobs.sql", Checksum: "0b74e41d6fd7b08237f1063af9c79cd18507317651841f7e65f00be057256af2"},
	{Version: 7, Name: "0007_daemonsets.sql", Checksum: "747464a221b5a045e22f9e309e1854d5ffdfb7fe02994b8cb5be923854552b15"},
	{Version: 8, Name: "0008_pods_by_controller.sql", Checksum: "1e3ad07acae5d574ad452f541b96e2493f8e52e54ec3876f7849e04bedf433ff"},
	{Version: 9, Name: "0009_replicasets_by_controller.sql", Checksum: "505eb3cf615c38080b19329858ec5beb39354aa45cb10a655f3d289719c44060"},
	{Version: 10, Name: "0010_ip_pools_free.sql", Checksum: "6aa019ac2570d491d01139a279a622ba1e48a8bb6b3b21ae078b2c9659615707"},
	{Version: 11, Name: "0011_cronjobs.sql", Checksum: "5518668e9be3b0f0073f4e4f19589a66232d985829ee7fb3c457d7077589851b"},
	{Version: 12, Name: "0012_statefulsets.sql", Checksum: "acd9a047295b79704bfad9a2eaad71b31258f9b1813f991e2261ada3f386841a"},
	{Version: 13, Name: "0013_controllerrevisions.sql", Checksum: "43fb7e2f4b2e4d898b8dd5169f757fbdf33d82311dee25d60ca23090ccaf63c3"},
	{Version: 14, Name: "0014_ip_allocations_by_name.sql", Checksum: "75218387345a8539c2842b193f37748bf923fa726a64bb8815445db5f558cb09"},
	{Version: 15, Name: "0015_node_timeline_more.sql", Checksum: "fbe54146b7bd22abcf70f9fa71d0c5a5dd083f18b05bb3a8e3422e2ed7f4746a"},
}

// Migrate creates or upgrades the view tables beside log, on whichever
// engine keeps it, on the views' pool, from their descriptions alone (no
// file of the views is applied any more): on SQLite first a nodes table
// an older herd made before the hot/cold split brought to the split's
// columns (viewstore.DB's SplitNodesTable); then the described tables and
// views (viewstore.DB's Ensure: made where the database lacks them,
// brought up to their descriptions where an older herd made them); then
// on SQLite the upgrades of rows an older herd wrote (their statements in
// viewstore's SQLite upgrades).
func Migrate(ctx context.Context, log events.Log) error {
	views := viewstore.NewDB(log)
	sqlite := views.Dialect().Engine() != events.EnginePostgres
	retired := retiredPostgres
	if sqlite {
		retired = retiredSQLite
		if err := views.SplitNodesTable(ctx); err != nil {
			return fmt.Errorf("migrate views: %w", err)
		}
	}
	if err := views.Ensure(ctx, describedTables(), viewstore.Views(), retired); err != nil {
		return err
	}
	if sqlite {
		// A PostgreSQL database was born in the present shape.
		if err := storeDerivedLabels(ctx, views); err != nil {
			return err
		}
		if err := splitNodeRows(ctx, views); err != nil {
			return err
		}
		if err := leasesRenewedAt(ctx, views); err != nil {
			return err
		}
	}
	return fillIPPoolsFree(ctx, views)
}
