// The trade-review assistant: the conversation list, one conversation, and
// the composer whose answer streams in as it is written. Only reachable when
// GET /api/config says `assistant: true` (the nav hides it otherwise).
import { Fragment, useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, NavLink, useLocation, useNavigate, useParams } from 'react-router';
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, client, errorText, unwrap, type Schemas } from '../../api/client';
import { useAppConfig } from '../../api/queries';
import { QueryList } from '../../components/QueryView';
import { ConfirmButton, ErrorNote, Field, Loading, LoadMore, PageTitle, TextAreaField } from '../../components/ui';
import { formatDateTime } from '../../format';
import { streamTurn, type ToolStep } from './stream';
import { canRetry, incompleteText, problemText, type Turn } from './turnState';
import { ConsentSwitch, ImageAttach, ModelPicker, OwnKeys, ToolSteps, useModels, type Attached } from './AssistantOptions';
import { PersonaPicker, Personas } from './Personas';
import { isReviewRequest, type Review } from './ReviewButton';
import './assistant.css';

type Message = Schemas['AssistantMessage'];
type StoredToolCall = Schemas['AssistantToolCall'];

const keys = {
  all: ['assistant'] as const,
  list: ['assistant', 'conversations'] as const,
  conversation: (id: string) => ['assistant', 'conversation', id] as const,
  /**
   * The running turn lives in the query client, not in the screen: the app
   * remounts a screen when its address changes (as from /assistant to the new
   * conversation's), and the answer must keep streaming across that. Outside
   * ['assistant'], so refreshing the conversations leaves it alone.
   */
  turn: ['assistant-turn'] as const,
};

/** newKey is a fresh idempotency key; randomUUID needs a secure context, so plain-http hosts get random bytes. */
export function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** useDebounced is value once it has stopped changing for ms. */
function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

function ConversationList({ current }: { current: string | undefined }) {
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim(), 250);
  const pages = useInfiniteQuery({
    queryKey: [...keys.list, q],
    queryFn: ({ pageParam }) =>
      unwrap(client.GET('/api/assistant/conversations', { params: { query: { limit: 30, ...(q ? { q } : {}), ...(pageParam ? { cursor: pageParam } : {}) } } })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    // While a search loads, the list shows what it showed.
    placeholderData: keepPreviousData,
  });
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <nav className="card conversations" aria-label="Conversations">
      <Link className="button" to="/assistant" aria-current={current ? undefined : 'page'}>
        New conversation
      </Link>
      <Field label="Search conversations" type="search" maxLength={200} placeholder="Words in a title" value={search} onChange={(e) => setSearch(e.target.value)} />
      <QueryList query={pages} items={items} empty={q ? `No conversation’s title holds “${q}”.` : 'No conversations yet.'}>
        {(conversations) => (
          <ul>
            {conversations.map((c) => (
              <li key={c.id}>
                <NavLink to={`/assistant/${c.id}`} title={formatDateTime(c.updatedAt)}>
                  {c.title}
                </NavLink>
              </li>
            ))}
          </ul>
        )}
      </QueryList>
      <LoadMore query={pages} busyLabel="Loading…" />
    </nav>
  );
}

function MessageItem({ role, text, incomplete }: { role: Message['role']; text: string; incomplete?: string | undefined }) {
  return (
    <li className={`message from-${role}`}>
      <div className="who">{role === 'user' ? 'You' : 'Assistant'}</div>
      {/* Plain text: React escapes it, and pre-wrap keeps the model's line breaks. */}
      <div className="message-text">{text}</div>
      {incomplete && <p className="note note-warn">{incomplete}</p>}
    </li>
  );
}

/** CreditsNote says what to do when the credits do not cover an answer: buy some, or ask the administrator where none are sold. */
function CreditsNote({ lead, code, billing }: { lead: string; code: string | undefined; billing: boolean }) {
  if (code === 'BILLING_NOT_AVAILABLE') {
    return (
      <p className="note note-error" role="alert">
        The assistant needs credits, and this server cannot sell them. Ask its administrator.
      </p>
    );
  }
  return (
    <p className="note note-error" role="alert">
      {lead} {billing ? <Link to="/billing">Buy credits</Link> : 'Credits cannot be bought on this server.'}
    </p>
  );
}

/** TurnProblem explains a refused or failed submit in words the user can act on. */
function TurnProblem({ error, billing }: { error: unknown; billing: boolean }) {
  if (error instanceof ApiError && (error.code === 'INSUFFICIENT_CREDITS' || error.code === 'BILLING_NOT_AVAILABLE')) {
    return <CreditsNote lead="You do not have enough credits for an answer." code={error.code} billing={billing} />;
  }
  if (error instanceof ApiError && error.status === 502) {
    // The server words what the model provider said (a refused key, its rate limit, overloaded, too long).
    return (
      <p className="note note-error" role="alert">
        {error.message || errorText(error)}
      </p>
    );
  }
  if (error instanceof ApiError && error.code === 'TURN_IN_PROGRESS') {
    return (
      <p className="note note-error" role="alert">
        Another answer is still being written (perhaps in another tab). Wait for it to finish, then retry.
      </p>
    );
  }
  return (
    <p className="note note-error" role="alert">
      {errorText(error)}
    </p>
  );
}

function TurnOutcome({ turn, billing }: { turn: Turn; billing: boolean }) {
  switch (turn.state) {
    case 'streaming':
      return (
        <p className="muted" role="status">
          Writing…
        </p>
      );
    case 'done':
      return (
        <>
          <p className="muted" role="status">
            {turn.done?.status === 'incomplete' && `${incompleteText(turn.done.reason)} `}
            {problemText(turn.done?.problem) && `${problemText(turn.done?.problem)} `}
            {turn.done?.creditsCharged ?? 0} credits charged{turn.done?.replay ? ' (already answered: nothing charged again)' : ''}.
          </p>
          {turn.done?.reason === 'insufficient_credits' && (
            <CreditsNote lead="To let it look further, add credits and ask again." code={turn.done.code} billing={billing} />
          )}
        </>
      );
    case 'stopped':
      return (
        <p className="muted" role="status">
          Stopped. What was written so far is kept with the conversation.
        </p>
      );
    case 'cut':
      return (
        <p className="note note-error" role="alert">
          The connection ended before the answer was finished. Retry to get it.
        </p>
      );
    case 'failed':
      return <TurnProblem error={turn.error} billing={billing} />;
  }
}

function Rename({ id, title }: { id: string; title: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState(title);
  const rename = useMutation({
    mutationFn: () => unwrap(client.PATCH('/api/assistant/conversations/{conversationId}', { params: { path: { conversationId: id } }, body: { title: draft.trim() } })),
    onSuccess: () => {
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: keys.all });
    },
  });
  const err = rename.error instanceof ApiError ? rename.error : undefined;
  if (!open) {
    return (
      <button type="button" className="ghost" onClick={() => setOpen(true)}>
        Rename
      </button>
    );
  }
  return (
    <form
      className="row"
      aria-label="Rename conversation"
      onSubmit={(e) => {
        e.preventDefault();
        rename.mutate();
      }}
    >
      <Field label="Title" maxLength={200} required value={draft} onChange={(e) => setDraft(e.target.value)} error={err?.fieldError('title')} />
      <button type="submit" disabled={rename.isPending || draft.trim() === ''}>
        Save title
      </button>
      <button type="button" className="ghost" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {rename.error && !err?.fieldError('title') && <ErrorNote error={rename.error} />}
    </form>
  );
}

/** ConversationPersona changes an existing conversation's persona; the next answer speaks as it. */
function ConversationPersona({ id, personaId }: { id: string; personaId: string }) {
  const queryClient = useQueryClient();
  const change = useMutation({
    mutationFn: (next: string) => unwrap(client.PATCH('/api/assistant/conversations/{conversationId}', { params: { path: { conversationId: id } }, body: { personaId: next } })),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: keys.conversation(id) }),
  });
  return (
    <>
      <PersonaPicker value={change.isPending && change.variables ? change.variables : personaId} disabled={change.isPending} onChange={(next) => change.mutate(next)} />
      <ErrorNote error={change.error} />
    </>
  );
}

/** reviewText says what a conversation reviews. */
export function reviewText(r: Review): string {
  switch (r.kind) {
    case 'week':
      return `A review of the week of ${r.date ?? ''}.`;
    case 'day':
      return `A review of the trading day ${r.date ?? ''}.`;
    case 'position':
      return 'A review of one trade.';
  }
}

function DeleteButton({ id, title }: { id: string; title: string }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => unwrap(client.DELETE('/api/assistant/conversations/{conversationId}', { params: { path: { conversationId: id } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: keys.conversation(id) });
      void queryClient.invalidateQueries({ queryKey: keys.list });
      void navigate('/assistant');
    },
  });
  return (
    <>
      <ConfirmButton className="danger" question={`Delete the conversation “${title}”?`} busy={remove.isPending} onConfirm={() => remove.mutate()}>
        Delete
      </ConfirmButton>
      {remove.error instanceof ApiError && remove.error.code === 'TURN_IN_PROGRESS' ? (
        <p className="note note-error" role="alert">
          An answer is still being written in this conversation. Stop it or wait, then delete.
        </p>
      ) : (
        <ErrorNote error={remove.error} />
      )}
    </>
  );
}

export default function Assistant() {
  const { conversationId } = useParams();
  const config = useAppConfig();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [question, setQuestion] = useState('');
  const [images, setImages] = useState<Attached[]>([]);
  const models = useModels(config.data?.assistant === true);
  const [picked, setPicked] = useState<string>();
  const modelList = models.data?.items ?? [];
  const model = modelList.find((m) => m.id === picked) ?? modelList[0];
  // The persona a new conversation starts with.
  const [newPersona, setNewPersona] = useState('default');
  const location = useLocation();
  const reviewStarted = useRef(false);
  const turn = useQuery<Turn | null>({ queryKey: keys.turn, queryFn: () => null, initialData: null, staleTime: Infinity, gcTime: Infinity }).data;
  const setTurn = (next: (t: Turn | null) => Turn | null) => queryClient.setQueryData<Turn | null>(keys.turn, (t) => next(t ?? null));
  const conversation = useQuery({
    queryKey: keys.conversation(conversationId ?? ''),
    queryFn: () => unwrap(client.GET('/api/assistant/conversations/{conversationId}', { params: { path: { conversationId: conversationId ?? '' } } })),
    enabled: conversationId !== undefined && config.data?.assistant === true,
  });

  const run = async (submit: Pick<Turn, 'conversation' | 'content' | 'idempotencyKey' | 'conversationId' | 'model' | 'images' | 'personaId' | 'context'>) => {
    const controller = new AbortController();
    let started: string | undefined;
    setTurn(() => ({ ...submit, answer: '', tools: [], state: 'streaming', controller }));
    const steps = (change: (tools: ToolStep[]) => ToolStep[]) =>
      setTurn((t) => (t && t.idempotencyKey === submit.idempotencyKey ? { ...t, tools: change(t.tools ?? []) } : t));
    const update = (change: Partial<Turn>) => setTurn((t) => (t && t.idempotencyKey === submit.idempotencyKey ? { ...t, ...change } : t));
    try {
      const done = await streamTurn(
        submit,
        {
          onStart: (e) => {
            started = e.conversationId;
            setTurn((t) => (t && t.idempotencyKey === submit.idempotencyKey ? { ...t, conversationId: e.conversationId, turnId: e.turnId, answer: '' } : t));
            // A new conversation exists from here on: show it at its own address.
            if (submit.conversation === 'new') void navigate(`/assistant/${e.conversationId}`, { replace: true });
          },
          onDelta: (text) => setTurn((t) => (t && t.idempotencyKey === submit.idempotencyKey ? { ...t, answer: t.answer + text } : t)),
          onToolCall: (step) => steps((tools) => [...tools, step]),
          onToolResult: (id, result) => steps((tools) => tools.map((s) => (s.id === id ? { ...s, result } : s))),
        },
        controller.signal,
      );
      update(done ? { state: 'done', done } : { state: 'cut' });
    } catch (err) {
      update(controller.signal.aborted ? { state: 'stopped' } : { state: 'failed', error: err });
    } finally {
      if (started) void queryClient.invalidateQueries({ queryKey: keys.all });
    }
  };

  const ask = (e: FormEvent) => {
    e.preventDefault();
    const content = question.trim();
    if (!content || turn?.state === 'streaming') return;
    setQuestion('');
    const attached = images.map((i) => ({ data: i.data }));
    setImages([]);
    void run({ conversation: conversationId ?? 'new', content, idempotencyKey: newKey(), model: model?.id, images: attached, ...(conversationId ? {} : { personaId: newPersona }) });
  };

  // A review button (dashboard, day, position) opens this screen with its request: it starts the
  // conversation once, and the request is taken off the history entry so a reload does not repeat it.
  const request = isReviewRequest(location.state) ? location.state : undefined;
  const assistantOn = config.data?.assistant === true;
  useEffect(() => {
    if (!request || !assistantOn || conversationId !== undefined || reviewStarted.current || turn?.state === 'streaming') return;
    reviewStarted.current = true;
    void navigate('/assistant', { replace: true, state: null });
    void run({ conversation: 'new', content: request.question, idempotencyKey: newKey(), model: model?.id, personaId: newPersona, context: request.review });
  });

  if (config.isPending) return <Loading />;
  if (config.isError) return <ErrorNote error={config.error} />;
  if (!config.data?.assistant) {
    return (
      <>
        <PageTitle>Assistant</PageTitle>
        <p className="note">The trade-review assistant is not enabled on this server.</p>
      </>
    );
  }

  const here = conversationId ?? 'new';
  const messages = conversation.data?.messages ?? [];
  // A started turn belongs to its conversation; one refused before it started, to where it was asked.
  const turnHere = turn !== null && (turn.conversationId !== undefined ? turn.conversationId === conversationId : turn.conversation === here);
  // The running turn is shown from the stream until the stored answer has arrived.
  const answered = turn?.turnId !== undefined && messages.some((m) => m.turnId === turn.turnId && m.role === 'assistant');
  const showTurn = turnHere && !answered;
  // How the latest turn ended (credits charged, incomplete, refused) stays in view after its answer is stored.
  const showOutcome = turnHere && turn?.state !== 'streaming';
  const stored = showTurn && turn?.turnId ? messages.filter((m) => m.turnId !== turn.turnId) : messages;
  const streaming = turn?.state === 'streaming';
  const billing = config.data?.billing ?? false;
  const title = conversation.data?.conversation.title;
  // Stored tool calls, by the turn they belong to, shown before that turn's answer.
  const toolsByTurn = new Map<string, StoredToolCall[]>();
  for (const c of conversation.data?.toolCalls ?? []) toolsByTurn.set(c.turnId, [...(toolsByTurn.get(c.turnId) ?? []), c]);
  const storedSteps = (turnId: string): ToolStep[] =>
    (toolsByTurn.get(turnId) ?? []).map((c) => ({ id: `${c.turnId}-${c.seq}`, name: c.name, arguments: c.arguments, result: c.result }));

  return (
    <>
      <PageTitle>Assistant</PageTitle>
      <div className="assistant-screen">
        <div className="assistant-side">
          <ConversationList current={conversationId} />
          <Personas />
        </div>
        <section className="card" aria-label={title ?? 'New conversation'}>
          {conversationId !== undefined && conversation.isPending && <Loading />}
          {conversation.isError &&
            (conversation.error instanceof ApiError && conversation.error.status === 404 ? (
              <p className="note">This conversation does not exist (any more).</p>
            ) : (
              <ErrorNote error={conversation.error} />
            ))}
          {title !== undefined && conversationId !== undefined ? (
            <div className="page-title">
              <h2>{title}</h2>
              <div className="actions">
                <ConversationPersona id={conversationId} personaId={conversation.data?.conversation.personaId ?? 'default'} />
                <Rename key={title} id={conversationId} title={title} />
                <DeleteButton id={conversationId} title={title} />
              </div>
            </div>
          ) : (
            conversationId === undefined && (
              <>
                <h2>New conversation</h2>
                <p className="muted">Ask about your own journal: “Why do my Monday trades lose?”, “Review my last 20 losers.”</p>
                <PersonaPicker value={newPersona} onChange={setNewPersona} disabled={streaming} />
              </>
            )
          )}
          {conversation.data?.conversation.review && <p className="muted">{reviewText(conversation.data.conversation.review)}</p>}
          <ol className="messages" aria-label="Messages">
            {stored.map((m) => (
              <Fragment key={m.id}>
                {m.role === 'assistant' && <ToolSteps steps={storedSteps(m.turnId)} />}
                <MessageItem role={m.role} text={m.content} incomplete={m.role === 'assistant' && !m.complete ? 'This answer is incomplete.' : undefined} />
              </Fragment>
            ))}
            {showTurn && turn && (
              <>
                <MessageItem role="user" text={turn.content} />
                <ToolSteps steps={turn.tools ?? []} />
                {(turn.answer !== '' || streaming) && <MessageItem role="assistant" text={turn.answer} />}
              </>
            )}
          </ol>
          {(showTurn || showOutcome) && turn && (
            <div aria-live="polite">
              <TurnOutcome turn={turn} billing={billing} />
              {canRetry(turn) && (
                <button
                  type="button"
                  className="ghost"
                  onClick={() =>
                    void run({ conversation: turn.conversation, content: turn.content, idempotencyKey: turn.idempotencyKey, conversationId: turn.conversationId, model: turn.model, images: turn.images, personaId: turn.personaId, context: turn.context })
                  }
                >
                  Retry
                </button>
              )}
            </div>
          )}
          <form onSubmit={ask} aria-label="Ask the assistant">
            <ModelPicker models={modelList} value={model?.id ?? ''} onChange={setPicked} />
            <TextAreaField
              label="Your question"
              maxLength={4000}
              rows={3}
              value={question}
              onChange={(e) => setQuestion(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) e.currentTarget.form?.requestSubmit();
              }}
            />
            <ImageAttach images={images} onChange={setImages} model={model} />
            <div className="row">
              <button type="submit" disabled={streaming || question.trim() === '' || (conversationId !== undefined && !conversation.isSuccess)}>
                Ask
              </button>
              {streaming && (
                <button type="button" className="ghost" onClick={() => turn?.controller.abort()}>
                  Stop
                </button>
              )}
            </div>
          </form>
          <ConsentSwitch />
          {models.data?.ownKeys && <OwnKeys />}
        </section>
      </div>
    </>
  );
}
