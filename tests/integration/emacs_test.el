;;; emacs_test.el --- confvet's language server in Emacs through eglot  -*- lexical-binding: t -*-

;; Loaded by tests/integration/emacs_test.py into `emacs --batch' (no
;; user init file; Debian's site-start puts its elpa-* packages, eglot
;; among them, on the load path).  It opens values.yml of a ytt package,
;; waits for flymake's diagnostics from the server, applies the quick fix
;; as eglot executes a chosen code action, waits for the diagnostics to go
;; and asks for the hover on the fixed value; then, in a template of the
;; package, for the definition of a data value (xref) and the completions
;; after `data.values.' (completion-at-point).  The server is shut down
;; last.
;; Every outcome, an error too, ends in the JSON file named by
;; CONFVET_EMACS_OUT and a `kill-emacs', so a failure never leaves Emacs
;; waiting.
;;
;; Batch Emacs has no command loop: no command ends and Emacs is never
;; idle, so hooks and timers that wait for that (eglot-ensure's connect,
;; flymake's start, eglot's didChange, flymake's check after a change)
;; would never run.  `confvet-command-ends' does what the command loop
;; does when a command ends and the user stops typing: it runs
;; `post-command-hook', then each idle timer.

(require 'json)
(require 'subr-x)

(defvar confvet-result nil "The alist written to CONFVET_EMACS_OUT.")

(defun confvet-note (key value)
  (push (cons key value) confvet-result))

(defun confvet-command-ends ()
  "Run what the command loop runs after a command, then while idle."
  (run-hooks 'post-command-hook)
  (dolist (timer (copy-sequence timer-idle-list))
    (when (memq timer timer-idle-list)
      (timer-event-handler timer))))

(defun confvet-wait (seconds predicate)
  "Process the server's messages until PREDICATE holds or SECONDS pass.
Return PREDICATE's last value."
  (let ((deadline (+ (float-time) seconds))
        value)
    (while (and (not (setq value (funcall predicate)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05)
      (confvet-command-ends))
    value))

(defun confvet-diagnostics ()
  "Flymake's diagnostics of the buffer as alists (1-based line and column)."
  (mapcar
   (lambda (diagnostic)
     (let ((beg (flymake-diagnostic-beg diagnostic))
           (lsp (alist-get 'eglot-lsp-diag (flymake-diagnostic-data diagnostic))))
       `((line . ,(line-number-at-pos beg))
         (column . ,(save-excursion (goto-char beg) (1+ (current-column))))
         (type . ,(symbol-name (flymake-diagnostic-type diagnostic)))
         (text . ,(flymake-diagnostic-text diagnostic))
         (code . ,(plist-get lsp :code)))))
   (flymake-diagnostics)))

(defun confvet-run ()
  ;; Emacs 28 has no YAML mode of its own: Debian's elpa-yaml-mode if it
  ;; is installed, else a stand-in major mode for .yml and .yaml files.
  (unless (require 'yaml-mode nil t)
    (define-derived-mode yaml-mode prog-mode "YAML"
      "A stand-in for yaml-mode: comments start with #."
      (setq-local comment-start "# "))
    (add-to-list 'auto-mode-alist '("\\.ya?ml\\'" . yaml-mode)))
  ;; The block of docs/editors.md for Emacs, as a user's init file has it.
  (load (getenv "CONFVET_EMACS_DOCS_BLOCK") nil t t)
  (require 'eglot)
  (confvet-note 'eglot_version
                (with-temp-buffer
                  (insert-file-contents (locate-library "eglot.el" t))
                  (and (re-search-forward "^;; Version: \\(.*\\)$" nil t)
                       (match-string 1))))
  (confvet-note 'server_program (executable-find "confvet"))
  (let ((buffer (find-file-noselect (getenv "CONFVET_EMACS_FILE"))))
    ;; The file is shown, as `find-file' shows it; flymake waits for that.
    (switch-to-buffer buffer)
    (confvet-note 'major_mode (symbol-name major-mode))
    ;; `eglot-ensure' (from yaml-mode-hook) connects once a command ends.
    (confvet-command-ends)
    (confvet-note 'managed (and (confvet-wait 15 #'eglot-managed-p) t))
    (unless (eglot-managed-p) (error "eglot does not manage %s" (buffer-name)))
    (let ((server (eglot-current-server)))
      (confvet-note 'command (vconcat (process-command (jsonrpc--process server))))
      ;; Flymake's diagnostics, as the fringe and `flymake-show-diagnostics-buffer' show them.
      (confvet-note 'opened (and (confvet-wait 15 #'flymake-diagnostics) t))
      (confvet-note 'diagnostics (vconcat (confvet-diagnostics)))
      ;; The quick fix at the first diagnostic, executed as eglot executes
      ;; the action a user picks from `eglot-code-actions'.
      (when-let ((diagnostic (car (flymake-diagnostics))))
        (goto-char (flymake-diagnostic-beg diagnostic))
        (let* ((actions (eglot-code-actions (flymake-diagnostic-beg diagnostic)
                                            (flymake-diagnostic-end diagnostic)
                                            "quickfix"))
               (fix (car actions)))
          (confvet-note 'actions (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)))
          (when fix
            (eglot--read-execute-code-action (list fix) server "quickfix")
            (confvet-note 'fixed_text (buffer-substring-no-properties (point-min) (point-max)))
            ;; The fixed buffer, unsaved: its diagnostics go.
            (confvet-note 'cleared (and (confvet-wait 15 (lambda () (null (flymake-diagnostics)))) t))
            ;; Hover on the fixed value's key, as eglot's eldoc function asks.
            (goto-char (point-min))
            (re-search-forward "^replicas")
            (goto-char (match-beginning 0))
            (let ((hover (jsonrpc-request server :textDocument/hover
                                          (eglot--TextDocumentPositionParams))))
              (confvet-note 'hover (and hover (eglot--hover-info (plist-get hover :contents))))))))
      ;; A template of the package, in the same server: M-. (xref) on
      ;; data.values.replicas and completion (completion-at-point) after
      ;; `data.values.'.
      (with-current-buffer (find-file-noselect (getenv "CONFVET_EMACS_TEMPLATE"))
        (switch-to-buffer (current-buffer))
        (confvet-command-ends)
        (confvet-note 'template_managed (and (confvet-wait 15 #'eglot-managed-p) t))
        (re-search-forward "data\\.values\\.")
        (let* ((identifier (xref-backend-identifier-at-point 'eglot))
               (definitions (xref-backend-definitions 'eglot identifier)))
          (confvet-note 'definitions
                        (vconcat (mapcar (lambda (item)
                                           (let ((location (xref-item-location item)))
                                             `((file . ,(file-name-nondirectory
                                                         (xref-location-group location)))
                                               (line . ,(xref-location-line location)))))
                                         definitions))))
        (let ((capf (eglot-completion-at-point)))
          (confvet-note 'completions
                        (vconcat (and capf (all-completions "" (nth 2 capf)))))))
      ;; M-x eglot-shutdown: the server must answer `shutdown' within
      ;; eglot's 1.5 s (else this signals); then it is sent `exit', and
      ;; jsonrpc deletes its process.
      (eglot-shutdown server)
      (confvet-note 'stopped (not (jsonrpc-running-p server))))))

(let ((out (getenv "CONFVET_EMACS_OUT")))
  (condition-case err
      (confvet-run)
    (error (confvet-note 'error (error-message-string err))))
  (confvet-note 'messages (with-current-buffer (messages-buffer)
                            (buffer-substring-no-properties (point-min) (point-max))))
  (with-temp-file out
    (insert (json-encode confvet-result)))
  (kill-emacs 0))
