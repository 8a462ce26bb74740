package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The generator must draw the distribution frsm's ZipfianKeys draws: rank r with probability
// (1/(r+1)^theta)/zeta(n), ranks scattered over [0, n) by a bijection.
func TestZipfianMatchesTheDistribution(t *testing.T) {
	const n, draws = 1000, 400_000
	z := newZipfian(n, zipfTheta, rand.New(rand.NewPCG(1, 2)))
	counts := make([]int, n)
	for i := 0; i < draws; i++ {
		r := z.nextRank()
		if r < 0 || r >= n {
			t.Fatalf("rank %d outside [0, %d)", r, n)
		}
		counts[r]++
	}
	zn := zeta(n, zipfTheta)
	for _, r := range []int{0, 1} { // the two ranks the method draws exactly
		want := 1 / math.Pow(float64(r+1), zipfTheta) / zn
		got := float64(counts[r]) / draws
		if math.Abs(got-want) > 0.1*want {
			t.Errorf("rank %d: frequency %.4f, want %.4f", r, got, want)
		}
	}
}

func TestScatteringIsABijection(t *testing.T) {
	for _, n := range []int64{1, 2, 10, 1000, 100_000} {
		z := newZipfian(n, zipfTheta, rand.New(rand.NewPCG(1, 2)))
		seen := make(map[int64]bool, n)
		for r := int64(0); r < n; r++ {
			k := (r * z.multiplier) % n
			if seen[k] {
				t.Fatalf("n=%d: index %d hit twice", n, k)
			}
			seen[k] = true
		}
	}
}
