-- skill-lsp for Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client; vim.lsp.start is 0.8+).
-- Attaches to Python, TypeScript and JavaScript files, and to SKILL.md / skill.md and Claude Code
-- subagents (.claude/agents/*.md), which keep the markdown filetype. One server per project root. $SKILL_LSP_SERVER_CMD overrides the command, either as
-- words ("skill-lsp serve") or as a JSON list ('["/path/to/python", "-m", "skill_lsp", "serve"]').
local function skill_lsp_cmd()
  local override = vim.env.SKILL_LSP_SERVER_CMD
  if override == nil or vim.trim(override) == '' then
    return { 'skill-lsp', 'serve' }
  end
  if vim.startswith(vim.trim(override), '[') then
    return vim.fn.json_decode(override)
  end
  return vim.split(vim.trim(override), '%s+')
end

-- The nearest directory above the file holding one of these markers, never the home
-- directory (~/.claude and a dotfiles ~/.git would make the whole home a project).
local skill_lsp_markers = { '.agentdeck', '.claude', 'pyproject.toml', '.git' }

local function skill_lsp_root(path)
  local start = vim.fn.fnamemodify(path, ':p:h')
  local home = vim.loop.os_homedir()
  local dir = start
  while dir ~= home do
    for _, marker in ipairs(skill_lsp_markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return start
end

-- The rule code in front of skill-lsp's messages, in the virtual text and in the float
-- (`<space>e` / vim.diagnostic.open_float()): "AD101 unknown skill ...". Other servers' messages are
-- left as they are. Merge these keys into your own vim.diagnostic.config if you have one.
local function skill_lsp_format(diagnostic)
  if diagnostic.source == 'skill-lsp' and diagnostic.code then
    return string.format('%s %s', diagnostic.code, diagnostic.message)
  end
  return diagnostic.message
end

vim.diagnostic.config({
  virtual_text = { format = skill_lsp_format },
  float = { source = 'if_many', format = skill_lsp_format },
})

-- What a buffer gets once the server is attached: K shows the hover (left alone, K runs
-- 'keywordprg': pydoc in Python, man in Markdown), <C-x><C-o> completes skill names and
-- frontmatter keys from the server (0.7 sets no 'omnifunc' itself), and a few usual keys.
local function skill_lsp_on_attach(client, bufnr)
  vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc'
  local function map(keys, action, desc)
    vim.keymap.set('n', keys, action, { buffer = bufnr, desc = desc })
  end
  map('K', vim.lsp.buf.hover, 'skill-lsp: hover')
  map('gd', vim.lsp.buf.definition, 'skill-lsp: go to the skill')
  map('gr', vim.lsp.buf.references, 'skill-lsp: references')
  map('<space>ca', vim.lsp.buf.code_action, 'skill-lsp: quick fixes')
  map('<space>rn', vim.lsp.buf.rename, 'skill-lsp: rename')
  map('<space>e', vim.diagnostic.open_float, 'diagnostics of the line')
end

-- Markdown files that are skills or subagent definitions; other Markdown is left alone.
local function skill_lsp_wants_markdown(path)
  local file = vim.fn.fnamemodify(path, ':t')
  return file == 'SKILL.md' or file == 'skill.md' or path:match('/%.claude/agents/[^/]+%.md$') ~= nil
end

local skill_lsp_clients = {} -- root directory -> client id

-- <C-x><C-o> from the moment the file opens, not only once the server has attached (until then Neovim would
-- say "omnifunc is not set"): the server's completion when it is ready, else a word on why nothing comes.
function _G.skill_lsp_omnifunc(findstart, base)
  local bufnr = vim.api.nvim_get_current_buf()
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if client.name == 'skill_lsp' and client.initialized then
      return vim.lsp.omnifunc(findstart, base)
    end
  end
  if findstart == 1 then
    local id = skill_lsp_clients[skill_lsp_root(vim.api.nvim_buf_get_name(bufnr))]
    if id ~= nil and vim.lsp.get_client_by_id(id) ~= nil then
      vim.notify('skill-lsp is still starting (it indexes the project first): <C-x><C-o> completes once it is ready',
        vim.log.levels.WARN)
    else
      vim.notify('skill-lsp is not running for this file: is `skill-lsp` on your PATH? '
        .. 'Its log: :lua print(vim.lsp.get_log_path())', vim.log.levels.WARN)
    end
    return -3 -- nothing to complete: leave completion mode
  end
  return {}
end

local function skill_lsp_attach(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == '' or vim.bo[bufnr].buftype ~= '' then
    return
  end
  if vim.bo[bufnr].filetype == 'markdown' and not skill_lsp_wants_markdown(path) then
    return -- other Markdown files are not skills
  end
  -- set now, and again once the filetype plugins have set theirs (markdown's is HTML tags); on_attach sets
  -- the server's own
  vim.bo[bufnr].omnifunc = 'v:lua.skill_lsp_omnifunc'
  vim.schedule(function()
    if vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].omnifunc ~= 'v:lua.vim.lsp.omnifunc' then
      vim.bo[bufnr].omnifunc = 'v:lua.skill_lsp_omnifunc'
    end
  end)
  local root = skill_lsp_root(path)
  local client_id = skill_lsp_clients[root]
  if client_id == nil or vim.lsp.get_client_by_id(client_id) == nil then
    client_id = vim.lsp.start_client({
      name = 'skill_lsp',
      cmd = skill_lsp_cmd(),
      root_dir = root,
      on_attach = skill_lsp_on_attach,
      -- server settings (initializationOptions), for example:
      -- init_options = { ignore = { 'SK201' }, userSkillsDir = '~/.claude/skills' },
    })
    if client_id == nil then
      return
    end
    skill_lsp_clients[root] = client_id
  end
  vim.lsp.buf_attach_client(bufnr, client_id)
end

local skill_lsp_group = vim.api.nvim_create_augroup('skill_lsp', { clear = true })

-- "Create skill" makes a buffer for the new SKILL.md, but Neovim 0.7 creates neither the file nor its
-- directory (its create_file skips both when ignoreIfExists is set): make the directory on :write.
vim.api.nvim_create_autocmd('BufWritePre', {
  group = skill_lsp_group,
  pattern = { 'SKILL.md', 'skill.md' },
  callback = function(args)
    vim.fn.mkdir(vim.fn.fnamemodify(args.match, ':p:h'), 'p')
  end,
})

vim.api.nvim_create_autocmd('FileType', {
  group = skill_lsp_group,
  pattern = { 'markdown', 'python', 'typescript', 'javascript', 'typescriptreact', 'javascriptreact' },
  callback = function(args)
    skill_lsp_attach(args.buf)
  end,
})
