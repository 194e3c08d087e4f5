// A NovelRAG tool in Go with the NATS Go client (github.com/nats-io/nats.go): `GoWordCount` counts the words of a
// text. It is read-only and idempotent, so it keeps no record per invocationId: a repeat simply runs again.
//
// The service protocol answers ($SRV.PING/INFO/STATS) are written here by hand: the `micro` package of the client
// that Debian ships (1.22) predates endpoint metadata, which is how tools describe themselves.
//
// Environment: NATS_URL (default nats://127.0.0.1:4222), GO_TOOL_NAME (default GoWordCount), GO_TOOL_SERVICE (the
// service name suffix, default go-example). Prints "ready" once it serves; SIGTERM/SIGINT stop it (announcing "down").
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

const (
	version = "1.0.0"
	queue   = "novelrag-tools"
)

var (
	toolName = envOr("GO_TOOL_NAME", "GoWordCount")
	service  = "novelrag-tools-" + envOr("GO_TOOL_SERVICE", "go-example")
	instance = nuid.Next()
	invoke   = "novelrag.tools." + toolName + ".invoke"
	started  = time.Now().UTC().Format(time.RFC3339)
	statuses = map[string]string{"VALIDATION_FAILED": "400", "TIMEOUT": "504", "CANCELLED": "409", "TOOL_FAILED": "502"}
)

const inputSchema = `{"type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":20000},` +
	`"holdMs":{"type":"integer","minimum":0,"maximum":600000,"description":"Wait this long first (to try cancel)"}},` +
	`"required":["text"],"additionalProperties":false}`

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

type invocation struct {
	SchemaVersion int                        `json:"schemaVersion"`
	InvocationID  string                     `json:"invocationId"`
	GoalID        string                     `json:"goalId"`
	Tool          string                     `json:"tool"`
	Params        map[string]json.RawMessage `json:"params"`
	Deadline      int64                      `json:"deadline"`
}

type params struct {
	Text   string
	HoldMs int64
}

type envelope struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

type output struct {
	Type   string    `json:"type"`
	Result *string   `json:"result,omitempty"`
	Error  *envelope `json:"error,omitempty"`
}

func failure(code, format string, args ...interface{}) output {
	return output{Type: "error", Error: &envelope{code, fmt.Sprintf(format, args...), code == "TIMEOUT"}}
}

func respond(msg *nats.Msg, out output) {
	if msg.Reply == "" {
		return
	}
	body, _ := json.Marshal(out)
	reply := &nats.Msg{Subject: msg.Reply, Data: body, Header: nats.Header{}}
	if out.Error != nil {
		line := strings.Join(strings.Fields(out.Error.Code+": "+out.Error.Message), " ")
		if len(line) > 256 {
			line = line[:256]
		}
		reply.Header.Set("Nats-Service-Error", line)
		reply.Header.Set("Nats-Service-Error-Code", statuses[out.Error.Code])
	}
	_ = msg.RespondMsg(reply)
}

// checkParams validates against inputSchema by hand, naming each offending field.
func checkParams(raw map[string]json.RawMessage) (params, []string) {
	var p params
	var problems []string
	for key := range raw {
		if key != "text" && key != "holdMs" {
			problems = append(problems, key+": unknown property")
		}
	}
	if err := json.Unmarshal(raw["text"], &p.Text); err != nil || len(p.Text) == 0 || len(p.Text) > 20000 {
		problems = append(problems, "text: must be a string of 1-20000 characters")
	}
	if hold, ok := raw["holdMs"]; ok {
		if err := json.Unmarshal(hold, &p.HoldMs); err != nil || p.HoldMs < 0 || p.HoldMs > 600000 {
			problems = append(problems, "holdMs: must be an integer from 0 to 600000")
		}
	}
	return p, problems
}

// run counts the words after holding, unless the goal is cancelled or the deadline passes first.
func run(nc *nats.Conn, inv invocation, p params) output {
	cancelled := make(chan *nats.Msg, 1)
	sub, err := nc.ChanSubscribe("novelrag.goals."+inv.GoalID+".cancel", cancelled)
	if err != nil {
		return failure("TOOL_FAILED", "cannot listen for cancel: %v", err)
	}
	defer sub.Unsubscribe()
	deadline := time.UnixMilli(inv.Deadline)
	select {
	case <-cancelled:
		return failure("CANCELLED", "the goal was cancelled while %s ran", toolName)
	case <-time.After(time.Until(deadline)):
		return failure("TIMEOUT", "%s did not finish before its deadline", toolName)
	case <-time.After(time.Duration(p.HoldMs) * time.Millisecond):
	}
	result := fmt.Sprintf("%d words, %d characters", len(strings.Fields(p.Text)), len([]rune(p.Text)))
	return output{Type: "result", Result: &result}
}

func onInvoke(nc *nats.Conn, msg *nats.Msg) {
	var inv invocation
	if err := json.Unmarshal(msg.Data, &inv); err != nil {
		respond(msg, failure("VALIDATION_FAILED", "the invocation is not a ToolInvocation: %v", err))
		return
	}
	if inv.SchemaVersion != 1 || inv.InvocationID == "" || inv.Params == nil || inv.Deadline == 0 ||
		inv.GoalID == "" || strings.ContainsAny(inv.GoalID, ".*> \t\r\n") {
		respond(msg, failure("VALIDATION_FAILED", "invalid invocation: schemaVersion 1, invocationId, goalId, params and deadline are required"))
		return
	}
	if inv.Tool != toolName {
		respond(msg, failure("VALIDATION_FAILED", "invocation for %s sent to %s", inv.Tool, toolName))
		return
	}
	p, problems := checkParams(inv.Params)
	if len(problems) > 0 {
		respond(msg, failure("VALIDATION_FAILED", "invalid parameters for %s: %s", toolName, strings.Join(problems, "; ")))
		return
	}
	if time.Now().UnixMilli() >= inv.Deadline {
		respond(msg, failure("TIMEOUT", "the deadline of %s passed before it started", toolName))
		return
	}
	go respond(msg, run(nc, inv, p))
}

func identity(kind string) map[string]interface{} {
	return map[string]interface{}{
		"type": "io.nats.micro.v1." + kind + "_response", "name": service, "id": instance, "version": version,
		"metadata": map[string]string{"instance": instance, "language": "go"},
	}
}

func microAnswer(verb string) map[string]interface{} {
	endpoint := map[string]interface{}{"name": toolName, "subject": invoke, "queue_group": queue}
	switch verb {
	case "PING":
		return identity("ping")
	case "INFO":
		endpoint["metadata"] = map[string]string{
			"description": "Counts the words and characters of a text.", "input_schema": inputSchema,
			"output_description": "<n> words, <m> characters", "timeout_ms": "30000",
			"read_only": "true", "destructive": "false", "idempotent": "true", "schema_version": "1",
		}
		answer := identity("info")
		answer["description"] = "NovelRAG example tool in Go"
		answer["endpoints"] = []interface{}{endpoint}
		return answer
	default:
		for _, k := range []string{"num_requests", "num_errors", "processing_time", "average_processing_time"} {
			endpoint[k] = 0
		}
		answer := identity("stats")
		answer["started"] = started
		answer["endpoints"] = []interface{}{endpoint}
		return answer
	}
}

func announce(nc *nats.Conn, change string) {
	event, _ := json.Marshal(map[string]interface{}{
		"schemaVersion": 1, "change": change, "service": service, "instance": instance, "tools": []string{toolName},
	})
	_ = nc.Publish("novelrag.tools.changed", event)
	_ = nc.Flush()
}

func main() {
	nc, err := nats.Connect(envOr("NATS_URL", nats.DefaultURL), nats.Name(service))
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot connect:", err)
		os.Exit(1)
	}
	for _, verb := range []string{"PING", "INFO", "STATS"} {
		for _, subject := range []string{"$SRV." + verb, "$SRV." + verb + "." + service, "$SRV." + verb + "." + service + "." + instance} {
			verb := verb
			_, _ = nc.Subscribe(subject, func(m *nats.Msg) {
				answer, _ := json.Marshal(microAnswer(verb))
				_ = m.Respond(answer)
			})
		}
	}
	endpoint, err := nc.QueueSubscribe(invoke, queue, func(m *nats.Msg) { onInvoke(nc, m) })
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot serve:", err)
		os.Exit(1)
	}
	_ = nc.Flush()
	announce(nc, "up")
	fmt.Println("ready")
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	_ = endpoint.Unsubscribe()
	announce(nc, "down")
	nc.Close()
}
