// Command collectorregex measures the CPU that Go's regexp (the Collector's engine) spends on the
// Collector config's scrubbing regexes, on texts read as JSON from stdin (bench/collector_regex.py).
//
// Each regex is run the way its processor runs it on one value: MatchString, then, on a match,
// ReplaceAllString (transform: replace_pattern / replace_all_patterns, whose replacement's `$`
// makes Go record every capture group) or ReplaceAllStringFunc (redaction: the match bounds only).
// Alongside: each pattern alone, summed, and the same alternation restricted per text to the
// patterns whose trigger matches it (the bound a trigger prefilter could reach). CPU seconds of
// this process (getrusage), not wall time.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

type pattern struct {
	Name    string `json:"name"`
	Regex   string `json:"regex"`
	Trigger string `json:"trigger"`
}

type entry struct {
	Name        string `json:"name"`
	Regex       string `json:"regex"`
	Replacement string `json:"replacement"` // "" for ReplaceAllStringFunc (redaction)
	MatchOnly   bool   `json:"match_only"`  // a condition (IsMatch, allowed_values): MatchString alone
}

type input struct {
	Entries  []entry   `json:"entries"`
	Patterns []pattern `json:"patterns"`
	Texts    []string  `json:"texts"`
}

func cpu() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		panic(err)
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func run(re *regexp.Regexp, repl string, texts []string) (int, int) {
	size, n := 0, 0
	for _, t := range texts {
		if !re.MatchString(t) {
			continue
		}
		n++
		if repl == "" {
			size += len(re.ReplaceAllStringFunc(t, func(string) string { return "****" }))
		} else {
			size += len(re.ReplaceAllString(t, repl))
		}
	}
	return size, n
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	result := map[string]any{"texts": len(in.Texts)}
	entries := map[string]any{}
	for _, e := range in.Entries {
		re := regexp.MustCompile(e.Regex)
		start := cpu()
		matched := 0
		if e.MatchOnly {
			for _, t := range in.Texts {
				if re.MatchString(t) {
					matched++
				}
			}
		} else {
			_, matched = run(re, e.Replacement, in.Texts)
		}
		entries[e.Name] = map[string]any{
			"cpu_s": (cpu() - start).Seconds(), "matched": matched, "groups": re.NumSubexp(),
		}
	}
	result["entries"] = entries

	// each pattern alone (its own groups kept, as in its own replace_pattern), summed
	type cost struct {
		name string
		s    float64
		hits int
	}
	var alone []cost
	var sum float64
	triggers := make([]*regexp.Regexp, len(in.Patterns))
	for i, p := range in.Patterns {
		re := regexp.MustCompile(p.Regex)
		start := cpu()
		run(re, "${1}****", in.Texts)
		s := (cpu() - start).Seconds()
		sum += s
		triggers[i] = regexp.MustCompile(p.Trigger)
		hits := 0
		for _, t := range in.Texts {
			if triggers[i].MatchString(t) {
				hits++
			}
		}
		alone = append(alone, cost{p.Name, s, hits})
	}
	sort.Slice(alone, func(a, b int) bool { return alone[a].s > alone[b].s })
	top := []map[string]any{}
	for _, c := range alone[:min(10, len(alone))] {
		top = append(top, map[string]any{"pattern": c.name, "cpu_s": c.s, "texts_triggered": c.hits})
	}
	result["patterns_alone_cpu_s"] = sum
	result["costliest_alone"] = top

	// the alternation of the patterns whose trigger matches each text, in order
	compiled := map[string]*regexp.Regexp{}
	var triggerS, subsetS float64
	for _, t := range in.Texts {
		start := cpu()
		var key []string
		var parts []string
		for i, p := range in.Patterns {
			if triggers[i].MatchString(t) {
				key = append(key, fmt.Sprint(i))
				parts = append(parts, "(?:"+p.Regex+")")
			}
		}
		triggerS += (cpu() - start).Seconds()
		if len(parts) == 0 {
			continue
		}
		k := strings.Join(key, ",")
		re, ok := compiled[k]
		if !ok {
			re = regexp.MustCompile(strings.Join(parts, "|"))
			compiled[k] = re
		}
		repl := ""
		if re.NumSubexp() > 0 {
			repl = "${1}****"
		}
		start = cpu()
		run(re, repl, []string{t})
		subsetS += (cpu() - start).Seconds()
	}
	result["triggered_subset"] = map[string]any{
		"triggers_cpu_s": triggerS, "alternation_cpu_s": subsetS, "distinct_subsets": len(compiled),
	}
	out, _ := json.MarshalIndent(result, "", "  ")
	fmt.Println(string(out))
}
