-- Presses <C-x><C-o> in $SKILL_LSP_NVIM_FILE (a SKILL.md, an agent file) before skill-lsp has attached (the server command does not answer, or does
-- not exist), and writes what Neovim said and the buffer's 'omnifunc' as JSON to $SKILL_LSP_NVIM_RESULT.
local result = { errors = {} }
local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(vim.env.SKILL_LSP_NVIM_FILE))
  vim.wait(300, function() return false end) -- the FileType autocmd's scheduled part runs
  result.omnifunc = vim.bo.omnifunc
  vim.cmd('messages clear')
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('Go<C-x><C-o>', true, false, true), 'x', false)
  result.messages = vim.fn.execute('messages')
  result.mode = vim.api.nvim_get_mode().mode
end)
if not ok then
  table.insert(result.errors, tostring(err))
end
vim.fn.writefile({ vim.fn.json_encode(result) }, vim.env.SKILL_LSP_NVIM_RESULT)
vim.cmd('qall!')
