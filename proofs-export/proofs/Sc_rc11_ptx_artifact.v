(* Sc_rc11_ptx_artifact.v -- hand-written, NOT generated.

   Toward scoped RC11's SC check (acyclic (incl & psc)) on the race-free lift Xs of a
   PTX-consistent execution Xt of a compiled program, for mappings/rc11-ptx-artifact.map.
   The theorem itself is NOT proved here; this file holds the closed building blocks of the
   planned proof:

   - [sc_psc_ends]: every psc edge joins two SC events.
   - [sc_psc_hb]: the "causal" psc edges (whose middle is sb, sb_nloc;hb;sb_nloc or hb & loc,
     and the hb branch of psc_F) are hb edges; so a cycle of them contradicts Coherence.
   - [sc_fig6_fr], [sc_fig6_co]: the store-buffering argument of the paper's Fig. 6, in the
     target: an sc edge f2 -> f1 with f1 (po|cause_base)? x, y (po|cause_base)? f2 and fr x y
     (or co x y) fails PTX's Causality (Coherence).
   - [sc_fence_rb_edge], [sc_fence_mo_edge]: for a psc edge between two SC *fences* a -> b of
     the source whose middle is rb (mo), sco cannot order b before a: the fences of a
     non-causal psc edge between fences are ordered by sco as psc orders them.
   - [sc_psc_split]: every psc edge is causal, or start;(mo|rb);end (start = [SC] |
     [F_SC];hb?, end = [SC] | hb?;[F_SC]), or an hb;eco;hb edge between two SC fences;
     [sc_psc_start_nonfence], [sc_psc_end_nonfence]: the padding is trivial at a non-fence end.
   - [sc_psc_nonfence]: a psc edge between two non-fences (here: the events of SC RMWs, the
     only SC accesses of this mapping) is sb, sb_nloc;hb;sb_nloc, hb & loc, mo or rb between
     its very ends; [sc_loc_edge_loc]: the last three join events of one location.

   What is missing (the main theorem [sc_of_race_free_lift] is NOT proved): psc edges that
   land on an SC RMW (rb or mo into its write, or hb into its read through an
   rf-synchronisation) give no sco order between the leading fence.sc of that RMW and the fence
   of the edge's start, so the plan "each psc edge is sco-forward between the fences" fails
   edge by edge. The planned segment argument: cut a cycle at anchors (SC fences, and SC RMW
   events entered through po, hence through their leading fence). By [sc_psc_nonfence] and
   [sc_loc_edge_loc], the edges strictly inside a segment join RMW events of one location
   (hb & loc | mo | rb); that same-location chain must be collapsed (source Coherence and
   Atomicity) to one rb/mo step or an hb step, after which [sc_fig6_fr]/[sc_fig6_co] close
   the segment against sco, and sco's transitive closure (through [sc_fences_sc]) links the
   anchors. Still to prove: the existence of the leading fence.sc of a source SC RMW in the
   target (from the lowering), the collapse of the same-location chain, target versions of
   the Coherence file's coh_hb_co_rf/coh_hb_fr_rf for the hb;eco;hb branch, and the
   assembly over the cycle. *)
From Mapcheck Require Import Rel Dec Checks Exec Model_wf Mirror_wf Program Model_rc11_scoped Mirror_rc11_scoped Model_ptx_v6 Obligations_rc11_ptx_artifact Compilation_rc11_ptx_artifact Strength_rc11_ptx_artifact Cause_rc11_ptx_artifact Atomicity_rc11_ptx_artifact Coherence_rc11_ptx_artifact.

(* ------------------------------------------------------------------ *)
(* psc on any execution                                                *)

(* Both ends of a psc edge are SC events. *)
Lemma sc_psc_ends : forall X a b, rc11_scoped_psc X a b -> SC X a /\ SC X b.
Proof.
  intros X a b [(m & Hl & n & _ & Hr) | (m & [[_ Sa] <-] & n & _ & [[_ Sb] <-])].
  - split.
    + destruct Hl as [[Sa <-] | (k & [[_ Sa] <-] & _)]; exact Sa.
    + destruct Hr as [[Sb ->] | (k & _ & [[_ Sb] ->])]; exact Sb.
  - split; assumption.
Qed.

(* hb? ; hb ; hb? is hb. *)
Lemma sc_opt_hb_l : forall X a b c, opt (E X) (rc11_scoped_hb X) a b -> rc11_scoped_hb X b c ->
  rc11_scoped_hb X a c.
Proof. intros X a b c [[_ <-]|H] K; [exact K | exact (tc_trans _ _ _ _ H K)]. Qed.

Lemma sc_opt_hb_r : forall X a b c, rc11_scoped_hb X a b -> opt (E X) (rc11_scoped_hb X) b c ->
  rc11_scoped_hb X a c.
Proof. intros X a b c H [[_ <-]|K]; [exact H | exact (tc_trans _ _ _ _ H K)]. Qed.

(* sb is in hb. *)
Lemma sc_sb_hb : forall X a b, rc11_scoped_sb X a b -> rc11_scoped_hb X a b.
Proof. intros X a b S. apply tc_once. left. exact S. Qed.

(* The causal part of psc: its edges are hb edges. *)
Definition sc_psc_causal (X : exec) : rel :=
  union (seq (union (id_on (SC X)) (seq (id_on (rc11_scoped_F_SC X)) (opt (E X) (rc11_scoped_hb X))))
          (seq (union (union (rc11_scoped_sb X)
                     (seq (rc11_scoped_sb_nloc X) (seq (rc11_scoped_hb X) (rc11_scoped_sb_nloc X))))
                     (inter (rc11_scoped_hb X) (loc X)))
               (union (id_on (SC X)) (seq (opt (E X) (rc11_scoped_hb X)) (id_on (rc11_scoped_F_SC X))))))
        (seq (id_on (rc11_scoped_F_SC X)) (seq (rc11_scoped_hb X) (id_on (rc11_scoped_F_SC X)))).

Lemma sc_psc_hb : forall X a b, sc_psc_causal X a b -> rc11_scoped_hb X a b.
Proof.
  intros X a b [(m & Hl & n & Hm & Hr) | (m & [_ <-] & n & H & [_ ->])]; [|exact H].
  assert (Hmn : rc11_scoped_hb X m n).
  { destruct Hm as [[S | (k & [S _] & j & H & [S' _])] | [H _]].
    - exact (sc_sb_hb _ _ _ S).
    - exact (tc_trans _ _ _ _ (sc_sb_hb _ _ _ S) (tc_trans _ _ _ _ H (sc_sb_hb _ _ _ S'))).
    - exact H. }
  assert (Han : rc11_scoped_hb X a n).
  { destruct Hl as [[_ <-] | (k & [_ <-] & O)]; [exact Hmn | exact (sc_opt_hb_l _ _ _ _ O Hmn)]. }
  destruct Hr as [[_ <-] | (k & O & [_ <-])]; [exact Han | exact (sc_opt_hb_r _ _ _ _ Han O)].
Qed.

(* A cycle of causal psc edges is an hb cycle. *)
Lemma sc_psc_causal_acyclic : forall X, irreflexive (rc11_scoped_hb X) -> acyclic (sc_psc_causal X).
Proof.
  intros X Irr a T. apply (Irr a).
  assert (G : forall x y, tc (sc_psc_causal X) x y -> rc11_scoped_hb X x y).
  { intros x y T'. induction T' as [x y S | x z y S _ IH].
    - exact (sc_psc_hb _ _ _ S).
    - exact (tc_trans _ _ _ _ (sc_psc_hb _ _ _ S) IH). }
  exact (G a a T).
Qed.

(* Between two SC events that are not fences (in this mapping: the reads and writes of SC
   RMWs), psc has no hb? padding: the middle starts and ends at the edge's ends. So such an
   edge is either po-shaped (sb, sb_nloc;hb;sb_nloc), or one of hb & loc, mo, rb. *)
Lemma sc_psc_nonfence : forall X a b, rc11_scoped_psc X a b -> ~ F X a -> ~ F X b ->
  union (union (rc11_scoped_sb X) (seq (rc11_scoped_sb_nloc X) (seq (rc11_scoped_hb X) (rc11_scoped_sb_nloc X))))
        (union (inter (rc11_scoped_hb X) (loc X)) (union (rc11_scoped_mo X) (rc11_scoped_rb X))) a b.
Proof.
  intros X a b [(m & Hl & n & Hm & Hr) | (m & [[Fa _] _] & _)] Na Nb; [|exact (Na Fa) || contradiction].
  destruct Hl as [[_ <-] | (k & [[Fa _] _] & _)]; [|contradiction].
  destruct Hr as [[_ ->] | (k & _ & [[Fb _] ->])]; [exact Hm | contradiction].
Qed.

(* Every psc edge is causal, or a non-causal base edge F? ; (mo | rb) ; F?, or an
   hb;eco;hb edge between two SC fences. In the second case the padding is trivial at a
   non-fence end. *)
Definition sc_psc_start (X : exec) : rel :=
  union (id_on (SC X)) (seq (id_on (rc11_scoped_F_SC X)) (opt (E X) (rc11_scoped_hb X))).
Definition sc_psc_end (X : exec) : rel :=
  union (id_on (SC X)) (seq (opt (E X) (rc11_scoped_hb X)) (id_on (rc11_scoped_F_SC X))).

Lemma sc_psc_split : forall X a b, rc11_scoped_psc X a b ->
  sc_psc_causal X a b
  \/ (exists x y, sc_psc_start X a x /\ union (rc11_scoped_mo X) (rc11_scoped_rb X) x y /\ sc_psc_end X y b)
  \/ (rc11_scoped_F_SC X a /\ rc11_scoped_F_SC X b /\
       seq (rc11_scoped_hb X) (seq (rc11_scoped_eco X) (rc11_scoped_hb X)) a b).
Proof.
  intros X a b [(m & Hl & n & Hm & Hr) | (m & [Fa <-] & n & [H|H] & [Fb ->])].
  - destruct Hm as [Hm|[Hm|Hm]].
    + left. left. exists m. split; [exact Hl|]. exists n. split; [left; exact Hm | exact Hr].
    + left. left. exists m. split; [exact Hl|]. exists n. split; [right; exact Hm | exact Hr].
    + right. left. exists m, n. split; [exact Hl|]. split; [exact Hm | exact Hr].
  - left. right. eexists. split; [split; [exact Fa | reflexivity]|].
    eexists. split; [exact H | split; [exact Fb | reflexivity]].
  - right. right. split; [exact Fa|]. split; [exact Fb | exact H].
Qed.

Lemma sc_psc_start_nonfence : forall X a x, sc_psc_start X a x -> ~ F X a -> a = x.
Proof. intros X a x [[_ E]|(k & [[Fa _] _] & _)] N; [exact E | contradiction]. Qed.

Lemma sc_psc_end_nonfence : forall X y b, sc_psc_end X y b -> ~ F X b -> y = b.
Proof. intros X y b [[_ E]|(k & _ & [[Fb _] E])] N; [exact E | subst; contradiction]. Qed.

(* The non-po-shaped psc edges between non-fences join events of one location. *)
Lemma sc_loc_edge_loc : forall X, wf_consistent X -> forall a b,
  union (inter (rc11_scoped_hb X) (loc X)) (union (rc11_scoped_mo X) (rc11_scoped_rb X)) a b ->
  ~ ~ loc X a b.
Proof.
  intros X Wf a b [[_ L]|[Co|Fr]].
  - apply nn_ret. exact L.
  - apply (nn_bind _ _ (wf_co_shape X Wf a b Co)). intros [_ L]. apply nn_ret. exact L.
  - assert (D : ~ ~ seq (inv (rf X)) (co X) a b).
    { intro N. apply (wf_fr X Wf a b). left. split; [exact Fr | exact N]. }
    apply (nn_bind _ _ D). intros (w & Rf & Co).
    apply (nn_bind _ _ (wf_rf_shape X Wf w a Rf)). intros [_ Lwa].
    apply (nn_bind _ _ (wf_co_shape X Wf w b Co)). intros [_ Lwb].
    apply (nn_bind _ _ (loc_sym X w a Wf Lwa)). intro Law.
    exact (Cause_rc11_ptx_artifact.loc_trans X Wf a w b Law Lwb).
Qed.

(* ------------------------------------------------------------------ *)
(* The store-buffering argument (paper, Fig. 6) in the target          *)

Section Fig6.
Variable X : exec.
Hypothesis Wf : wf_consistent X.
Variable sco : rel.

(* (po | cause_base)? *)
Definition sc_pco (a b : event) : Prop := a = b \/ po_cause X sco a b.

(* morally_strong lies in the events. *)
Lemma sc_ms_events : forall a b, ptx_v6_morally_strong X a b -> ~ ~ (E X a /\ E X b).
Proof.
  intros a b H.
  assert (Cd : ptx_v6_ms_candidates X a b) by (destruct H as [[Cd _]|[Cd _]]; exact Cd).
  destruct Cd as [P|[P|(a1 & [_ <-] & b1 & I & [_ ->])]].
  - exact (po_in_events X a b Wf P).
  - apply (nn_bind _ _ (po_in_events X b a Wf P)). intros [Eb Ea]. apply nn_ret. split; assumption.
  - exact (incl_in_events X a b Wf I).
Qed.

Lemma sc_sc_events : forall a b, ptx_v6_sc X sco a b -> ~ ~ (E X a /\ E X b).
Proof.
  intros a b H. unfold ptx_v6_sc in H.
  destruct H as [a b [_ M] | a z b [_ M] T].
  - exact (sc_ms_events a b M).
  - apply (nn_bind _ _ (sc_ms_events a z M)). intros [Ea _].
    destruct (tc_last _ _ _ T) as [[_ M']|(m & _ & [_ M'])];
      [apply (nn_bind _ _ (sc_ms_events z b M')) | apply (nn_bind _ _ (sc_ms_events m b M'))];
      intros [_ Eb]; apply nn_ret; split; assumption.
Qed.

(* sc is in cause_base. *)
Lemma sc_sc_cause_base : forall a b, ptx_v6_sc X sco a b -> ~ ~ ptx_v6_cause_base X sco a b.
Proof.
  intros a b H. apply (nn_bind _ _ (sc_sc_events a b H)). intros [Ea Eb]. apply nn_ret.
  apply tc_once. exists a. split; [left; split; [exact Ea | reflexivity]|].
  exists b. split; [right; right; exact H | left; split; [exact Eb | reflexivity]].
Qed.

(* y (po|cause_base)? f2, sc f2 f1, f1 (po|cause_base)? x: cause_base y x. *)
Lemma sc_through_sc : forall f1 f2 x y, ptx_v6_sc X sco f2 f1 -> sc_pco f1 x -> sc_pco y f2 ->
  ~ ~ ptx_v6_cause_base X sco y x.
Proof.
  intros f1 f2 x y S Hx Hy.
  apply (nn_bind _ _ (sc_sc_cause_base f2 f1 S)). intro K.
  assert (K1 : ~ ~ ptx_v6_cause_base X sco f2 x).
  { destruct Hx as [<-|[P|K']].
    - apply nn_ret, K.
    - exact (cause_base_po X Wf sco f2 f1 K x P).
    - apply nn_ret. exact (tc_trans _ _ _ _ K K'). }
  apply (nn_bind _ _ K1). intro K2.
  destruct Hy as [->|[P|K']].
  - apply nn_ret, K2.
  - exact (po_cause_base X Wf sco f2 x K2 y P).
  - apply nn_ret. exact (tc_trans _ _ _ _ K' K2).
Qed.

(* Fig. 6 with fr: Causality fails. *)
Lemma sc_fig6_fr : ptx_v6_ax_Causality X sco ->
  forall f1 f2 x y, ptx_v6_sc X sco f2 f1 -> sc_pco f1 x -> fr X x y -> sc_pco y f2 -> False.
Proof.
  intros Cau f1 f2 x y S Hx Fr Hy.
  apply (sc_through_sc f1 f2 x y S Hx Hy). intro K.
  apply (Cau x). exists y. split; [right; exact Fr | left; exact K].
Qed.

(* Fig. 6 with co: PTX's Coherence puts co y x, against co x y. *)
Lemma sc_fig6_co : ptx_v6_ax_Coherence X sco ->
  forall f1 f2 x y, ptx_v6_sc X sco f2 f1 -> sc_pco f1 x -> co X x y -> sc_pco y f2 -> False.
Proof.
  intros Coh f1 f2 x y S Hx Co Hy.
  apply (sc_through_sc f1 f2 x y S Hx Hy). intro K.
  apply (wf_co_shape X Wf x y Co). intros [[Wx Wy] Lxy].
  apply (loc_sym X x y Wf Lxy). intro Lyx.
  apply (Coh y x). split; [split; [|exact Lyx]|].
  - exists y. split; [split; [exact Wy | reflexivity]|].
    exists x. split; [left; exact K | split; [exact Wx | reflexivity]].
  - intro Cyx. apply (nn_incl _ _ x x (wf_consistent_co_transitive _ Wf) (ex_intro _ y (conj Co Cyx))).
    exact (wf_co_irreflexive X Wf x).
Qed.

End Fig6.

(* ------------------------------------------------------------------ *)
(* Non-causal psc edges between two SC fences are sco-forward          *)

Section FenceEdges.
Variables (Ps Pt : program) (Xs Xt : exec).
Hypothesis C : compilation Ps Pt Xs Xt.
Hypothesis Xs_race_free : rc11_scoped_race_free Xs.

Let WfS := Xs_wf Ps Pt Xs Xt C.
Let WfT := Xt_wf Ps Pt Xs Xt C.

Variable sco : rel.
Hypothesis Coh : ptx_v6_ax_Coherence Xt sco.
Hypothesis CohMS : ptx_v6_ax_CoherenceMorallyStrong Xt sco.
Hypothesis SCL : ptx_v6_ax_SCPerLocation Xt sco.
Hypothesis Cau : ptx_v6_ax_Causality Xt sco.

(* Two source fences related by incl: sco between them (either way) is sc. *)
Lemma sc_fences_sc : forall a b, F Xs a -> F Xs b -> incl Xs a b -> sco b a ->
  ~ ~ ptx_v6_sc Xt sco b a.
Proof.
  intros a b Fa Fb I S.
  apply (nn_bind _ _ (fences_in_target _ _ _ _ C a Fa)). intro Fta.
  apply (nn_bind _ _ (fences_in_target _ _ _ _ C b Fb)). intro Ftb.
  apply (nn_bind _ _ (incl_in_target _ _ _ _ C a b (F_not_IW Xs a WfS Fa)
                        (F_not_IW Xs b WfS Fb) I)). intro It.
  apply (nn_bind _ _ (incl_sym Xt a b WfT It)). intro Itba.
  apply nn_ret. apply tc_once. split; [exact S|].
  apply ms_intro; [left; exact Ftb | left; exact Fta | exact Itba |].
  left. exact (not_M_of_F Xt WfT b Ftb).
Qed.

(* hb? from a non-initial event of the source is (po | cause_base)? of the target. *)
Lemma sc_opt_hb_pco : forall a x, ~ IW Xs a -> opt (E Xs) (rc11_scoped_hb Xs) a x ->
  ~ ~ sc_pco Xt sco a x.
Proof.
  intros a x Na [[_ <-]|H].
  - apply nn_ret. left. reflexivity.
  - apply (nn_bind _ _ (hb_in_cause _ _ _ _ C sco a x H)). intros [Ia|[P|K]].
    + intros _. exact (Na Ia).
    + apply nn_ret. right. left. exact P.
    + apply nn_ret. right. right. exact K.
Qed.

(* [F_SC]; hb?; rb; hb?; [F_SC] in incl: sco does not put the end before the start. *)
Lemma sc_fence_rb_edge : forall a b x y, F Xs a -> F Xs b -> incl Xs a b ->
  opt (E Xs) (rc11_scoped_hb Xs) a x -> fr Xs x y -> opt (E Xs) (rc11_scoped_hb Xs) y b ->
  sco b a -> False.
Proof.
  intros a b x y Fa Fb I Hax Fr Hyb S.
  apply (fr_source_def _ _ _ _ C x y Fr). intros (w & _ & Co).
  pose proof (wf_co_init_first Xs WfS w y Co) as Ny.
  apply (sc_fences_sc a b Fa Fb I S). intro Sc.
  apply (sc_opt_hb_pco a x (F_not_IW Xs a WfS Fa) Hax). intro Px.
  apply (sc_opt_hb_pco y b Ny Hyb). intro Py.
  apply (coh_fr_st _ _ _ _ C Xs_race_free sco Coh CohMS SCL x y Fr). intro Frt.
  exact (sc_fig6_fr Xt WfT sco Cau a b x y Sc Px Frt Py).
Qed.

(* [F_SC]; hb?; mo; hb?; [F_SC] in incl: the same. *)
Lemma sc_fence_mo_edge : forall a b x y, F Xs a -> F Xs b -> incl Xs a b ->
  opt (E Xs) (rc11_scoped_hb Xs) a x -> co Xs x y -> opt (E Xs) (rc11_scoped_hb Xs) y b ->
  sco b a -> False.
Proof.
  intros a b x y Fa Fb I Hax Co Hyb S.
  pose proof (wf_co_init_first Xs WfS x y Co) as Ny.
  apply (sc_fences_sc a b Fa Fb I S). intro Sc.
  apply (sc_opt_hb_pco a x (F_not_IW Xs a WfS Fa) Hax). intro Px.
  apply (sc_opt_hb_pco y b Ny Hyb). intro Py.
  apply (co_agrees _ _ _ _ C Xs_race_free sco Coh CohMS SCL x y Co). intro Cot.
  exact (sc_fig6_co Xt WfT sco Coh a b x y Sc Px Cot Py).
Qed.

End FenceEdges.
