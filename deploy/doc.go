// Package deploy holds how millzero runs on Kubernetes: the container
// image (Dockerfile) and the Helm chart (helm/millzero) for a run in an
// object store, with one trainer and a scalable Deployment of self-play
// workers. The package has no code; its tests lint and render the chart
// with helm, decode every manifest strictly into the Kubernetes API types
// and check the Dockerfile against the repository.
package deploy
