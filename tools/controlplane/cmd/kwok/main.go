// Command kwok simulates nodes and kubelets: it marks fake nodes Ready and moves their pods through their phases.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodelease "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/cmd"
	"sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"
)

// kwok's own binary starts with no lifecycle stages; kwokctl injects its defaults. We run kwok directly,
// so `kwok default-stages` prints those same defaults (fast node/pod stages, lease heartbeat) for --config.
func printDefaultStages() {
	stages := []string{
		nodefast.DefaultNodeInit,
		nodelease.DefaultNodeHeartbeatWithLease,
		podfast.DefaultPodReady,
		podfast.DefaultPodComplete,
		podfast.DefaultPodDelete,
	}
	for i, stage := range stages {
		if i > 0 {
			fmt.Println("---")
		}
		fmt.Println(strings.TrimSpace(stage))
	}
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "default-stages" {
		printDefaultStages()
		return
	}

	flags := pflag.NewFlagSet("global", pflag.ContinueOnError)
	flags.ParseErrorsAllowlist.UnknownFlags = true
	flags.Usage = func() {}

	ctx := signals.SetupSignalContext()
	ctx, logger := log.InitFlags(ctx, flags)
	ctx, err := config.InitFlags(ctx, flags)
	if err != nil {
		logger.Error("init config flags", "err", err)
		os.Exit(1)
	}

	command := cmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(flags)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("exit", "err", err)
		os.Exit(1)
	}
}
