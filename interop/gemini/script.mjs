// What the fake model answers to each prompt, step by step (see fake-api.mjs),
// and what the driver expects of each tool call.

/** A thought part: the CLI splits `**subject** description` into both. */
const thought = (subject, description) => ({ text: `**${subject}** ${description}`, thought: true });
const text = (t) => ({ text: t });
const call = (id, name, args) => ({ functionCall: { id, name, args } });

export const P = {
  hello: 'Say hello in one short sentence.',
  french: 'Now say it in French.',
  work: 'Check the workspace: echo hi, read missing.txt, then write notes.txt.',
  image: 'What is in @dot.png, and what does @README.md say?',
  down: 'Describe it in more detail.',
  compress: 'List the files here and tell me how many there are.',
  delegate: 'Ask a helper agent to count the files in this folder.',
  count: 'Count to three.',
  five: 'Now count to five.',
  german: 'Count to three in German instead.',
  ten: 'Count to ten.',
};

export const A = {
  hello: 'Hello from the fake model!',
  french: 'Bonjour de la part du faux modèle !',
  work: 'Done: `echo hi` printed hi, missing.txt does not exist, and notes.txt now has two notes.',
  image: 'A single dot; the README names the project: beta.',
  compress: 'The folder is empty: zero files.',
  delegate: 'The helper says the folder holds no files.',
  count: 'One, two, three.',
  five: 'One, two, three, four, five.',
  german: 'Eins, zwei, drei.',
};

/** The snapshot the model writes when the CLI compresses the history. */
export const SUMMARY = '<state_snapshot>\nThe user was greeted in English and in French.\n</state_snapshot>';

/** The subagent the delegate prompt starts: its prompt, and its own turns. */
export const SUB = {
  agent: 'generalist',
  prompt: 'Count the files in the current folder and report the number.',
  result: 'The folder holds no files.',
};

/**
 * The titles `--list-sessions` has the model write, by a prompt of the
 * session that the conversation it is given quotes (after a compression,
 * only the prompts it kept).
 */
export const TITLE = {
  [P.compress]: 'Greet the user and count the files',
  [P.work]: 'Inspect the beta workspace',
  [P.delegate]: 'Count files with a helper agent',
  [P.count]: 'Count in two languages',
};

/** What each tool call should do: whether it fails, and what its result holds. */
export const calls = {
  call_echo: { fails: false, output: 'hi' },
  call_missing: { fails: true, output: 'File not found' },
  call_write: { fails: false, output: 'notes.txt' },
  call_ls: { fails: false, output: '' },
  call_agent: { fails: false, output: SUB.result },
  call_sub_ls: { fails: false, output: '' },
  // What the CLI answers the subagent's `complete_task`.
  call_sub_done: { fails: false, output: 'Output submitted and task completed.' },
};

export const script = {
  [P.hello]: [{ parts: [thought('Greeting', 'A short hello will do.'), text(A.hello)] }],
  [P.french]: [{ parts: [text(A.french)] }],
  [P.work]: [
    {
      parts: [
        thought('Looking around', 'Start with a harmless command, then the missing file.'),
        call('call_echo', 'run_shell_command', { command: 'echo hi', description: 'Say hi' }),
        call('call_missing', 'read_file', { file_path: 'missing.txt' }),
      ],
    },
    { parts: [call('call_write', 'write_file', { file_path: 'notes.txt', content: 'first note\nsecond note\n' })] },
    { parts: [text(A.work)] },
  ],
  [P.image]: [{ parts: [text(A.image)] }],
  [P.count]: [{ parts: [thought('Counting', 'Three numbers, in order.'), text(A.count)] }],
  [P.five]: [{ parts: [text(A.five)] }],
  [P.german]: [{ parts: [text(A.german)] }],
  [P.ten]: [{ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'The fake model cannot count that far.' } }],
  // The API refuses the request; the CLI does not retry a 400.
  [P.down]: [{ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'The fake model is down.' } }],
  [P.compress]: [
    // A prompt this large is past half the model's window: before sending the
    // tool's result the CLI compresses the history.
    { parts: [call('call_ls', 'list_directory', { dir_path: '.' })], usage: { promptTokenCount: 700000, totalTokenCount: 700012 } },
    { parts: [text(A.compress)] },
  ],
  [P.delegate]: [
    { parts: [call('call_agent', 'invoke_agent', { agent_name: SUB.agent, prompt: SUB.prompt })] },
    { parts: [text(A.delegate)] },
  ],
  [SUB.prompt]: [
    { parts: [call('call_sub_ls', 'list_directory', { dir_path: '.' })] },
    { parts: [call('call_sub_done', 'complete_task', { result: { response: SUB.result } })] },
  ],
  // The CLI's own prompts: the compression snapshot and its check, and titles.
  'Generate a new <state_snapshot>…': [{ parts: [text(SUMMARY)] }],
  'Critically evaluate the <state_snapshot>…': [{ parts: [text(SUMMARY)] }],
  // A title is the one of the first prompt the conversation quotes.
  "Summarize the user's primary intent…": (prompt) => {
    const first = Object.keys(TITLE).find((p) => prompt.includes(`User: ${p}`));
    return first ? [{ parts: [text(TITLE[first])] }] : undefined;
  },
};
