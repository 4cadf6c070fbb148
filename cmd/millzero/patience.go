package main

import (
	"flag"
	"fmt"
	"strings"
	"time"
)

// patienceFlag is --store-patience: how long a store operation is retried
// while the run's store does not answer, a duration or "forever".
type patienceFlag struct {
	d   time.Duration // < 0: forever
	set bool
}

func (p *patienceFlag) String() string {
	if p == nil {
		return ""
	}
	if p.d < 0 {
		return "forever"
	}
	s := p.d.String() // 10m0s, 1h0m0s: said as 10m, 1h
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

func (p *patienceFlag) Set(s string) error {
	if strings.EqualFold(s, "forever") {
		p.d, p.set = -1, true
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("want a duration above 0 (30s, 10m, 2h) or forever, not %q", s)
	}
	p.d, p.set = d, true
	return nil
}

// storePatienceFlag defines --store-patience with the default def (< 0:
// forever), which --help prints; note, if any, ends its usage (the
// default's exceptions).
func storePatienceFlag(fs *flag.FlagSet, def time.Duration, note string) *patienceFlag {
	p := &patienceFlag{d: def}
	usage := "how long to retry while the run's store does not answer (a duration such as 30s, 10m, or forever), saying every 30 s what it waits for"
	if note != "" {
		usage += "; " + note
	}
	fs.Var(p, "store-patience", usage)
	return p
}
