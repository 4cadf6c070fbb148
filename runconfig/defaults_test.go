package runconfig

import (
	"reflect"
	"testing"

	"github.com/millzero/millzero/model"
	"github.com/millzero/millzero/selfplay"
	"github.com/millzero/millzero/train"
)

// TestDefaults_GoDefaultsAreTheEmbeddedConfig: the packages' Go defaults
// (used where no run config is read) are configs/runs/nine.yaml's values,
// so a default is defined once and a change to one side fails here.
func TestDefaults_GoDefaultsAreTheEmbeddedConfig(t *testing.T) {
	c, _, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []struct {
		name      string
		goDefault any
		embedded  any
	}{
		{"model", model.DefaultConfig(), c.Model},
		{"train", train.DefaultConfig(), c.Train},
		{"selfplay", selfplay.DefaultSettings(), c.SelfPlay},
	} {
		if !reflect.DeepEqual(d.goDefault, d.embedded) {
			t.Errorf("%s: Go default\n%+v\nbut %s says\n%+v", d.name, d.goDefault, DefaultConfigName, d.embedded)
		}
	}
}
