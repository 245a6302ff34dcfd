import { Component, type ReactNode } from 'react';

interface State {
  failed: boolean;
}

/** ErrorBoundary keeps one broken screen (or a chunk that failed to load) from blanking the app. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  render() {
    if (this.state.failed) {
      return (
        <div role="alert" className="note note-error">
          <p>This screen failed to load.</p>
          <button type="button" onClick={() => window.location.reload()}>
            Reload
          </button>
        </div>
      );
    }
    return this.props.children;
  }
}
