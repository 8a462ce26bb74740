// Command etcd-workload runs the paper's workload against an etcd cluster, as
// io.frsm.bench.experiment.RemoteWorkloadMain runs it against frsm and ZooKeeper, and prints the
// same REMOTE line so one parser reads all three.
//
// The workload (frsm-server's WorkloadSpec.paper and WorkloadRunner): --clients closed-loop
// callers; each draws a key of --keys from a Zipf distribution (theta 0.99, Gray et al.'s method,
// ranks scattered by the same coprime multiplier), then with probability 0.43 reads it, else does a
// read-modify-write: a read, then a CAS from the version read (a create when absent) with a 512-byte
// value; the write's latency covers both calls. A lost race counts as a mismatch. --warmup seconds
// unmeasured (second by second to stderr), then a fresh run of --seconds measured.
//
// On etcd: a read is Get with etcd's default linearizable consistency (serializable=false); a key's
// version is its ModRevision; CAS is Txn(If ModRevision(key) == r Then Put); create if absent is
// Txn(If CreateRevision(key) == 0 Then Put). Callers are spread over --client-instances independent
// clientv3.Client values (caller i uses client i mod instances), each with its own connections.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

const (
	readFraction = 0.43
	valueSize    = 512
	zipfTheta    = 0.99
	opTimeout    = 10 * time.Second
)

func main() {
	endpoints := flag.String("endpoints", "", "etcd client URLs, comma-separated")
	callers := flag.Int("clients", 64, "closed-loop caller goroutines")
	instances := flag.Int("client-instances", -1, "independent clientv3 clients (default: one per caller)")
	warmup := flag.Int("warmup", 20, "unmeasured seconds first")
	seconds := flag.Int("seconds", 20, "measured seconds")
	keys := flag.Int64("keys", 100000, "key count")
	nodePids := flag.String("node-pids", "", "the servers' pids, comma-separated: their CPU per operation")
	flag.Parse()
	if *endpoints == "" {
		fail("give --endpoints URL[,URL...]")
	}
	if *instances < 1 || *instances > *callers {
		*instances = *callers
	}
	clients := make([]*clientv3.Client, *instances)
	for i := range clients {
		c, err := clientv3.New(clientv3.Config{
			Endpoints:   strings.Split(*endpoints, ","),
			DialTimeout: 30 * time.Second,
			Logger:      zap.NewNop(),
		})
		if err != nil {
			fail("cannot connect: %v", err)
		}
		defer c.Close()
		clients[i] = c
	}
	pids := parsePids(*nodePids)

	run(clients, *callers, *keys, time.Duration(*warmup)*time.Second, 0, true)
	cpu0 := ownCPU()
	ticks0 := ticks(pids)
	r := run(clients, *callers, *keys, time.Duration(*seconds)*time.Second, 1, false)
	cpu := ownCPU() - cpu0
	nodeTicks := ticks(pids) - ticks0

	ops := r.total()
	nodesPerOp := math.NaN()
	if len(pids) > 0 {
		nodesPerOp = float64(nodeTicks) * 10_000 / float64(max(1, ops))
	}
	fmt.Printf("REMOTE clients=%d instances=%d ops=%d ops_per_s=%.0f get_p50_us=%.0f"+
		" get_p99_us=%.0f cas_p50_us=%.0f cas_p99_us=%.0f cas_mismatches=%d"+
		" unknown=%d errors=%d client_cpu_us_per_op=%.1f nodes_cpu_us_per_op=%.1f"+
		" get_p999_us=%.0f cas_p999_us=%.0f\n",
		*callers, *instances, ops, float64(ops)/r.elapsed.Seconds(),
		r.percentile("get", 50), r.percentile("get", 99),
		r.percentile("cas", 50), r.percentile("cas", 99),
		r.mismatches, r.unknown, r.errors,
		float64(cpu.Microseconds())/float64(max(1, ops)), nodesPerOp,
		r.percentile("get", 99.9), r.percentile("cas", 99.9))
	if r.lastError != "" {
		fmt.Fprintln(os.Stderr, "last error:", r.lastError)
	}
}

// result holds one run's latencies by operation type ("get", "cas", "create") and its counts.
type result struct {
	latencies  map[string][]time.Duration
	mismatches int64
	unknown    int64
	errors     int64
	lastError  string
	elapsed    time.Duration
}

func newResult() *result { return &result{latencies: map[string][]time.Duration{}} }

func (r *result) add(o *result) {
	for k, v := range o.latencies {
		r.latencies[k] = append(r.latencies[k], v...)
	}
	r.mismatches += o.mismatches
	r.unknown += o.unknown
	r.errors += o.errors
	if o.lastError != "" {
		r.lastError = o.lastError
	}
}

// total counts completed operations: every get, cas and create (as WorkloadResult does).
func (r *result) total() int64 {
	var n int64
	for _, v := range r.latencies {
		n += int64(len(v))
	}
	return n
}

// percentile in microseconds, nearest rank; 0 when there is none of that type.
func (r *result) percentile(op string, p float64) float64 {
	v := r.latencies[op]
	if len(v) == 0 {
		return 0
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	idx := int(math.Ceil(p/100*float64(len(v)))) - 1
	idx = min(max(idx, 0), len(v)-1)
	return float64(v[idx].Nanoseconds()) / 1000
}

// run drives callers closed-loop for d and merges their results.
func run(clients []*clientv3.Client, callers int, keys int64, d time.Duration, phase uint64, progress bool) *result {
	start := time.Now()
	end := start.Add(d)
	var done atomic.Int64
	results := make([]*result, callers)
	var wg sync.WaitGroup
	for c := 0; c < callers; c++ {
		results[c] = newResult()
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			callerLoop(clients[c%len(clients)], keys, uint64(c)+phase*1_000_003, end, results[c], &done)
		}(c)
	}
	stop := make(chan struct{})
	if progress {
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			var last int64
			for {
				select {
				case <-stop:
					return
				case now := <-t.C:
					total := done.Load()
					fmt.Fprintf(os.Stderr, "warm-up t=%3ds  %8d ops/s  total %10d\n",
						int(now.Sub(start).Seconds()), total-last, total)
					last = total
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	total := newResult()
	for _, r := range results {
		total.add(r)
	}
	total.elapsed = time.Since(start)
	return total
}

func callerLoop(cli *clientv3.Client, keyCount int64, seed uint64, end time.Time, r *result, done *atomic.Int64) {
	random := rand.New(rand.NewPCG(42, seed))
	zipf := newZipfian(keyCount, zipfTheta, rand.New(rand.NewPCG(43, seed)))
	source := make([]byte, 1024)
	for i := range source {
		source[i] = byte(random.Uint32())
	}
	for {
		startAt := time.Now()
		if !startAt.Before(end) {
			return
		}
		key := fmt.Sprintf("key-%010d", zipf.next())
		var err error
		if random.Float64() < readFraction {
			_, _, err = get(cli, key)
			if err == nil {
				r.latencies["get"] = append(r.latencies["get"], time.Since(startAt))
			}
		} else {
			off := random.IntN(len(source) - valueSize + 1)
			value := string(source[off : off+valueSize])
			err = readModifyWrite(cli, key, value, startAt, r)
		}
		if err != nil {
			r.errors++
			r.lastError = err.Error()
			continue
		}
		done.Add(1)
	}
}

// get reads key linearizably: its ModRevision (its version) and whether it exists.
func get(cli *clientv3.Client, key string) (int64, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	resp, err := cli.Get(ctx, key)
	if err != nil {
		return 0, false, err
	}
	if len(resp.Kvs) == 0 {
		return 0, false, nil
	}
	return resp.Kvs[0].ModRevision, true, nil
}

// errUnknown marks a write whose outcome is unknown (counted apart, as frsm's workload does).
var errUnknown = errors.New("write outcome unknown")

func readModifyWrite(cli *clientv3.Client, key, value string, startAt time.Time, r *result) error {
	rev, present, err := get(cli, key)
	if err != nil {
		return err
	}
	var cmp clientv3.Cmp
	op := "cas"
	if present {
		cmp = clientv3.Compare(clientv3.ModRevision(key), "=", rev)
	} else {
		op = "create"
		cmp = clientv3.Compare(clientv3.CreateRevision(key), "=", 0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	resp, err := cli.Txn(ctx).If(cmp).Then(clientv3.OpPut(key, value)).Commit()
	if err != nil {
		// A write whose reply was lost may or may not have been applied: count it, as frsm's
		// workload counts an unknown outcome, and record the operation's latency all the same.
		r.unknown++
	} else if !resp.Succeeded {
		r.mismatches++
	}
	r.latencies[op] = append(r.latencies[op], time.Since(startAt))
	return nil
}

// zipfian draws key indexes in [0, n) as frsm-server's ZipfianKeys does (Gray et al., SIGMOD '94;
// YCSB's generator), hot ranks scattered by a multiplier coprime to n.
type zipfian struct {
	n, multiplier            int64
	theta, alpha, zetaN, eta float64
	random                   *rand.Rand
}

func newZipfian(n int64, theta float64, random *rand.Rand) *zipfian {
	z := &zipfian{n: n, theta: theta, random: random}
	z.zetaN = zeta(n, theta)
	zeta2 := zeta(min(2, n), theta)
	z.alpha = 1 / (1 - theta)
	z.eta = 1
	if n > 2 {
		z.eta = (1 - math.Pow(2.0/float64(n), 1-theta)) / (1 - zeta2/z.zetaN)
	}
	a := max(1, int64(float64(n)*0.6180339887498949))
	for gcd(a, n) != 1 {
		a++
	}
	z.multiplier = a
	return z
}

var zetaCache sync.Map // zeta(n, theta) is O(n): computed once per process, not per caller

func zeta(n int64, theta float64) float64 {
	k := fmt.Sprintf("%d/%g", n, theta)
	if v, ok := zetaCache.Load(k); ok {
		return v.(float64)
	}
	sum := 0.0
	for i := int64(1); i <= n; i++ {
		sum += 1 / math.Pow(float64(i), theta)
	}
	zetaCache.Store(k, sum)
	return sum
}

func (z *zipfian) nextRank() int64 {
	u := z.random.Float64()
	uz := u * z.zetaN
	if uz < 1 {
		return 0
	}
	if uz < 1+math.Pow(0.5, z.theta) {
		return min(1, z.n-1)
	}
	rank := int64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(rank, z.n-1)
}

func (z *zipfian) next() int64 {
	// rank·a mod n without overflow for n < 2^31: both factors < 2^31.
	return (z.nextRank() * z.multiplier) % z.n
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ownCPU is this process's user + system CPU time so far.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func parsePids(s string) []int {
	var pids []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := strconv.Atoi(f)
		if err != nil {
			fail("bad pid %q", f)
		}
		pids = append(pids, p)
	}
	return pids
}

// ticks is utime + stime of pids together in 10 ms clock ticks (/proc/PID/stat fields 14 and 15).
func ticks(pids []int) int64 {
	var sum int64
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			fail("cannot read /proc/%d/stat: %v", p, err)
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += u + st
	}
	return sum
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "etcd-workload: "+format+"\n", args...)
	os.Exit(2)
}
