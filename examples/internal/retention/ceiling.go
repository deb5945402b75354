package retention

import "context"

// NeededCeiling returns the most needed messages any selection can keep
// within the task's budget, keeping tool-call groups whole, and with
// pinned also the messages chitta's default pins (system messages, the
// live turn, the first user turn and the tool-search results that the
// pinned calls' tools need; see [chitta.Options.FreeSelection]).
// It is a label oracle, not a method: it knows which messages are needed,
// so it bounds what any order or rule could reach on the same budget (an
// exact 0/1 knapsack over the groups holding needed messages, valued by
// how many they hold). needed indexes t.Messages.
func NeededCeiling(ctx context.Context, env Env, t Task, needed []int, pinned bool) (int, error) {
	scores, budget, err := layout(ctx, env, t)
	if err != nil {
		return 0, err
	}
	if pinned {
		if err := pinLive(ctx, env, t, scores); err != nil {
			return 0, err
		}
	}
	isNeeded := make([]bool, len(scores))
	for _, i := range needed {
		if i >= 0 && i < len(isNeeded) {
			isNeeded[i] = true
		}
	}
	// A group is pinned when any member is (chitta pins whole groups).
	pinnedUnit := map[int]bool{}
	for _, s := range scores {
		if s.Pinned {
			pinnedUnit[s.Unit] = true
		}
	}
	base, room := 0, budget
	value, cost := map[int]int{}, map[int]int{}
	var order []int
	for i, s := range scores {
		if pinnedUnit[s.Unit] {
			room -= s.Tokens
			if isNeeded[i] {
				base++
			}
			continue
		}
		if _, ok := cost[s.Unit]; !ok {
			order = append(order, s.Unit)
		}
		cost[s.Unit] += s.Tokens
		if isNeeded[i] {
			value[s.Unit]++
		}
	}
	if room <= 0 {
		return base, nil
	}
	// Groups without a needed message cannot raise the count: leave them out.
	total := 0
	for _, u := range order {
		if value[u] > 0 {
			total += cost[u]
		}
	}
	room = min(room, total)
	best := make([]int, room+1) // best[b]: most needed messages within b tokens
	for _, u := range order {
		v, c := value[u], cost[u]
		if v == 0 {
			continue
		}
		for b := room; b >= c; b-- {
			best[b] = max(best[b], best[b-c]+v)
		}
	}
	return base + best[room], nil
}
