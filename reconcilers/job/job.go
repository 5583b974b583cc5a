package job

import (
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/reconcilers"
)

// kindJob is the kind an owner reference names a Job by.
const kindJob = "Job"

// Reconciler is the Job reconciler. Its keys are Jobs, those that exist
// and those that are gone (whose pods it collects); its resync looks at
// every Job.
type Reconciler struct {
	reconcilers.PodOwner[domain.Job]
	cfg         Config
	jobs        Reader
	podCommands PodCommands
	jobCommands domain.Executor[domain.Job, domain.JobCommand]
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the Job reconciler, or the configuration's problems. It
// names new pods with reconcilers.RandomIdentities; clk is what its deadlines, its
// backoff and its TTLs are measured by.
func New(cfg Config, jobs Reader, pods PodLister, podCommands PodCommands,
	jobCommands domain.Executor[domain.Job, domain.JobCommand], clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reconciler{
		PodOwner: reconcilers.NewPodOwner("job", kindJob, domain.JobAggregate, cfg.ResyncPeriod, jobs, pods, podCommands, clk, log),
		cfg:      cfg, jobs: jobs, podCommands: podCommands, jobCommands: jobCommands,
	}, nil
}

// Watches implements reconcilers.Reconciler: Jobs, but the status the
// reconciler records and the pods it counts itself, and a change of their
// labels or annotations alone (a Job's pods are its spec's), and the pods
// each controls.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.JobAggregate, domain.JobStatusRecorded{}, domain.JobPodsCounted{}, domain.JobMetadataChanged{}).
		Owns(domain.PodAggregate, r.Controlled.Owners(), domain.PodFinalized{}, reconcilers.PodStepsOwnersIgnore...).
		Adopts(r.Controlled.Selectors())
}
